"""VTC-Bench problems: generators, the pinned suite, read-outs, answer scoring and the official TSV loader."""

from __future__ import annotations

import base64
import io
from collections import Counter

import numpy as np
import pytest
from PIL import Image

from mmenvs.core import ImageStore
from mmenvs.vtc import generators as gen
from mmenvs.vtc.problems import (CATEGORIES, Problem, evaluate_expr, load_suite, load_tsv, problem_from_dict, problem_image, run_chain,
                                 similarity, validate_problem, write_tsv)
from mmenvs.vtc.scoring import aggregate, chain_metrics, chosen_letter, effective_calls, format_tables, is_correct, match_open, normalise_open
from mmenvs.vtc.tools import ToolCallResult


@pytest.fixture(scope="module")
def suite() -> list[Problem]:
    return load_suite()


# ------------------------------------------------------------------------------ the pinned suite
def test_suite_has_the_papers_shape(suite):
    assert len(suite) == 680 and len({p.id for p in suite}) == 680
    assert Counter(p.category for p in suite) == Counter(CATEGORIES)
    assert Counter(p.answer_type for p in suite) == {"choice": 538, "open": 142}
    lengths = [len(p.reference_chain) for p in suite]
    assert 4.5 <= sum(lengths) / len(lengths) <= 5.5 and sorted(lengths)[len(lengths) // 2] == 5  # paper: mean 5.04, median 5
    letters = Counter(p.answer for p in suite if p.choices)
    assert all(90 <= letters[x] <= 190 for x in "ABCD")  # no position the random agent could exploit much
    assert all(p.generator == p.category and isinstance(p.seed, int) for p in suite)


def test_suite_regenerates_exactly_for_a_sample(suite):
    for problem in suite[::40]:
        fresh = gen.generate(problem.generator, problem.seed, problem.params, problem_id=problem.id)
        assert fresh.to_dict() == problem.to_dict(), problem.id
        check = validate_problem(problem)  # regenerates the image from (generator, seed, params) and runs the chain
        assert check.ok, (problem.id, check.detail)


def test_render_is_deterministic_and_cached(suite):
    problem = suite[0]
    first = problem_image(problem)
    assert not first.flags.writeable
    again = gen.build(problem.generator, problem.seed, problem.params).image
    assert np.array_equal(first, again)
    other = gen.build(problem.generator, problem.seed + 1000, {}).image
    assert not np.array_equal(first, other)


@pytest.mark.parametrize("name", list(gen.GENERATORS))
def test_each_generator_makes_valid_problems(name):
    for seed in range(5000, 5004):
        problem = gen.generate(name, seed, {})
        check = validate_problem(problem, problem.image)
        assert check.ok, (name, seed, check.detail)
        assert problem.category == name and problem.question.endswith(("?", ".", "only."))
        if problem.choices:
            assert len(problem.choices) == 4 and len(set(problem.choices)) == 4 and problem.answer in "ABCD"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(gen.GENERATORS))
def test_hundreds_of_problems_per_generator_validate(name):
    count = 0
    for seed in range(20_000, 20_200):
        params = {"answer_type": "open" if seed % 2 else "choice"} if name == "counting" else {}
        problem = gen.generate(name, seed, params)  # validates the chain; raises if no attempt of this seed does
        assert problem.category == name and problem.reference_chain
        count += 1
    assert count == 200


def test_images_need_tools():
    # OCR: the raw photo does not look like the clean text; the chain's output does
    for seed in range(3):
        draft = gen.build("ocr", seed, {"variant": "noise"})
        assert similarity(draft.image, draft.target) < 0.45
    # counting: plain thresholding and labelling miscounts the touching coins, watershed does not
    for seed in range(3):
        draft = gen.build("counting", seed, {})
        store = ImageStore()
        store.add(draft.image)
        naive = run_chain(store, draft.chain[:3] + [{"tool": "connected_components", "arguments": {"image": "$2"}}])
        assert naive[-1].numbers["count"] < draft.truth
    # attention: the tag covers a tiny share of the image
    draft = gen.build("attention_focusing", 0, {})
    assert draft.target.size / draft.image.size < 0.002


def test_numeric_choices_put_the_truth_at_every_rank():
    ranks = Counter()
    rng = np.random.default_rng(0)
    for _ in range(400):
        options, letter = gen.numeric_choices(rng, 40.0, rel=0.2, min_step=1.0, fmt="{:.0f}")
        values = [float(o) for o in options]
        assert values == sorted(values) and values["ABCD".index(letter)] == 40.0
        ranks[letter] += 1
    assert all(70 <= ranks[x] <= 130 for x in "ABCD")
    options, letter = gen.numeric_choices(rng, 2.0, rel=0.0, min_step=1.0, fmt="{:.0f}")
    assert all(float(o) > 0 for o in options)


# ------------------------------------------------------------------------------ chains and read-outs
def _result(numbers: dict, output: str = "img_1") -> ToolCallResult:
    return ToolCallResult("x", {}, ["img_0"], output, numbers)


def test_readout_expressions_are_arithmetic_only():
    results = [_result({"components": [{"centroid": [10.0, 5.0]}, {"centroid": [13.0, 9.0]}]}), _result({"length": 50.0})]
    assert evaluate_expr("$1.length / 10", results) == 5.0
    assert evaluate_expr("dist($0.components.0.centroid, $0.components.1.centroid)", results) == 5.0
    assert evaluate_expr("direction($0.components.0.centroid, $0.components.1.centroid)", results) == "above"
    for bad in ("__import__('os')", "$1.length.__class__", "open('x')", "[x for x in (1,)]", "(1).real"):
        with pytest.raises(ValueError):
            evaluate_expr(bad, results)
    with pytest.raises(ValueError, match="step 5"):
        evaluate_expr("$5.length", results)


def test_problem_dict_errors_name_the_field():
    good = {"id": "p1", "category": "math", "question": "q?", "answer": "B", "choices": ["1", "2"], "generator": "math", "seed": 1}
    assert problem_from_dict(good).answer == "B"
    with pytest.raises(ValueError, match="'answer' must be a letter among AB"):
        problem_from_dict({**good, "answer": "C"}, "p.json")
    with pytest.raises(ValueError, match=r"reference_chain\[0\] names unknown tool 'fly'"):
        problem_from_dict({**good, "reference_chain": [{"tool": "fly"}]})
    with pytest.raises(ValueError, match="unknown generator"):
        problem_from_dict({**good, "generator": "nope"})
    with pytest.raises(ValueError, match="'question' must be a non-empty string"):
        problem_from_dict({**good, "question": ""})


# ------------------------------------------------------------------------------ answer matching
@pytest.mark.parametrize("response, expected", [
    ("C", "C"), ("C.", "C"), ("(C)", "C"), ("C) 12 cm", "C"), ("C - 12 cm", "C"), ("Option C", "C"), ("answer: c", "C"),
    ("12 cm", "C"), ("12.0 cm", "C"), ("square", "A"), ("A square", "A"), ("B square", None), ("E", None), ("maybe", None),
])
def test_choice_letters_and_option_texts(response, expected):
    assert chosen_letter(response, ["square", "8 cm", "12 cm", "16 cm"]) == expected


def test_choice_correctness():
    assert is_correct("C) 12 cm", "C", ["square", "8 cm", "12 cm", "16 cm"])
    assert not is_correct("B", "C", ["square", "8 cm", "12 cm", "16 cm"])
    assert not is_correct(None, "C", ["a", "b", "c"])


def test_open_answers_are_normalised():
    assert normalise_open("  1,000.50 CM ") == "1000.5"
    assert normalise_open("Seven coins.") == "7 coins"
    assert match_open("k7qx2p", "K7QX2P")
    assert match_open("The code is “7KX”.", "7KX")
    assert match_open("There are 12 coins", "12") and not match_open("There are 112 coins", "12")
    assert match_open("12.0", "12") and not match_open("12.5", "12")
    assert not match_open("", "12")


# ------------------------------------------------------------------------------ chain metrics
def test_effective_chain_walks_lineage_back_from_the_relied_on_image():
    store = ImageStore()
    store.add(np.zeros((4, 4), np.uint8))
    store.add(np.zeros((4, 4), np.uint8), parents=["img_0"], op="a")  # img_1
    store.add(np.zeros((4, 4), np.uint8), parents=["img_0"], op="b")  # img_2 (a detour)
    store.add(np.zeros((4, 4), np.uint8), parents=["img_1"], op="c")  # img_3
    calls = [{"tool": "a", "ok": True, "output": "img_1"}, {"tool": "b", "ok": True, "output": "img_2"},
             {"tool": "x", "ok": False, "output": None}, {"tool": "c", "ok": True, "output": "img_3"}]
    assert effective_calls(store, calls, ["img_3"]) == [0, 3]
    assert effective_calls(store, calls, ["img_2"]) == [1]
    m = chain_metrics(calls, [0, 3], reference_length=5)
    assert (m["calls"], m["effective_calls"], m["abs_error_all"], m["abs_error_effective"], m["unique_tools"]) == (4, 2, 1, 3, 4)


def test_aggregate_and_tables():
    eps = [{"correct": True, "category": "ocr", "chain_metrics": chain_metrics([{"tool": "a"}] * 4, [0, 1], 5)},
           {"correct": False, "category": "math", "chain_metrics": chain_metrics([], [], 3)}]
    s = aggregate(eps)
    assert (s["APR"], s["TCR"], s["MAE_all"], s["MAE_effective"], s["Eff_tool"]) == (50.0, 50.0, 2.0, 3.0, 50.0)
    text = format_tables(eps, "demo")
    assert "| demo | 50.00 | 100.00 | – |" in text and "Table 5" in text


# ------------------------------------------------------------------------------ official TSV
def _png_b64(array: np.ndarray) -> str:
    buffer = io.BytesIO()
    Image.fromarray(array).save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def test_tsv_round_trip(tmp_path, suite):
    problems = [p for p in suite if p.category in ("math", "ocr")][:1] + [next(p for p in suite if p.category == "ocr")]
    names = []
    for i, problem in enumerate(problems):
        Image.fromarray(problem_image(problem)).save(tmp_path / f"{i}.png")
        names.append(f"{i}.png")
    path = write_tsv(problems, tmp_path / "bench.tsv", names)
    loaded = load_tsv(path, tmp_path)
    assert [p.question for p in loaded] == [p.question for p in problems]
    assert [p.answer for p in loaded] == [p.answer for p in problems]
    assert [p.choices for p in loaded] == [p.choices for p in problems]
    assert [[s["tool"] for s in p.reference_chain] for p in loaded] == [[s["tool"] for s in p.reference_chain] for p in problems]
    assert np.array_equal(problem_image(loaded[0]), problem_image(problems[0]))


def test_tsv_paper_format_quotes_tool_names_and_base64(tmp_path):
    image = np.full((8, 8, 3), 99, np.uint8)
    Image.fromarray(image).save(tmp_path / "a.png")
    header = "index\tid\tcategory\timage\tquestion\tanswer\tA\tB\tC\tD\tgt_tools\n"
    rows = [
        "0\tq0\tRobust OCR\ta.png\tWhat does the \u201csign\u201d say?\tHELLO\t\t\t\t\tConvert Color -> Threshold -> Sharpen\n",
        f"1\tq1\tChart\t{_png_b64(image)}\tWhich bar\u2019s tallest?\tred\tblue\tred\tgreen\t\t['Crop', 'Zoom In', 'Conn. Components']\n",
    ]
    (tmp_path / "p.tsv").write_text(header + "".join(rows), encoding="utf-8")
    first, second = load_tsv(tmp_path / "p.tsv", tmp_path)
    assert first.question == 'What does the "sign" say?' and first.category == "ocr" and first.choices is None
    assert [s["tool"] for s in first.reference_chain] == ["colorspace", "threshold", "sharpen"]
    assert second.question == "Which bar's tallest?" and second.answer == "B" and second.choices == ["blue", "red", "green"]
    assert [s["tool"] for s in second.reference_chain] == ["crop", "zoom_in", "connected_components"]
    assert np.array_equal(problem_image(second), image)


@pytest.mark.parametrize("row, message", [
    ("0\tq\tmath\ta.png\tQ?\tE\t1\t2\t3\t4\tCrop\n", r"row 2, column 'answer': 'E' is neither an option letter"),
    ("0\tq\tmath\ta.png\tQ?\tA\t1\t2\t3\t4\tCrop -> Levitate\n", r"row 2, column 'gt_tools': unknown tool name 'Levitate'"),
    ("0\tq\tmath\tmissing.png\tQ?\tA\t1\t2\t3\t4\tCrop\n", r"row 2, column 'image': image file 'missing.png' not found"),
    ("0\tq\tmath\ta.png\t\tA\t1\t2\t3\t4\tCrop\n", r"row 2, column 'question': empty"),
    ("0\tq\tmath\ta.png\tQ?\tA\t1\t2\t3\t4\tCrop\textra\n", r"row 2: 1 more cells than header columns"),
])
def test_malformed_tsv_rows_name_row_and_column(tmp_path, row, message):
    Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(tmp_path / "a.png")
    (tmp_path / "bad.tsv").write_text("index\tid\tcategory\timage\tquestion\tanswer\tA\tB\tC\tD\tgt_tools\n" + row, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_tsv(tmp_path / "bad.tsv", tmp_path)


def test_tool_usage_plot(tmp_path):
    from mmenvs.vtc.scoring import plot_tool_usage, tool_usage

    eps = [{"correct": True, "chain_metrics": chain_metrics([{"tool": "crop"}, {"tool": "crop"}, {"tool": "rotate"}], [0], 2)}]
    assert tool_usage(eps) == Counter({"crop": 2, "rotate": 1})
    path = plot_tool_usage(eps, tmp_path / "usage.png")
    with Image.open(path) as im:
        assert im.size[0] >= 600 and im.size[1] == 400
