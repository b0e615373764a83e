"""The chat-message adapter (mmenvs.wrappers.chat): data-URL images, the image window, tool results."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import llm_support  # noqa: F401  (registers LLMEcho-v0)
from mmenvs.wrappers import ChatHistory, ChatMessages, ImageOptions, encode_image
from mmenvs.wrappers.chat import decode_data_url, strip_images


def _decoded(url: str) -> Image.Image:
    mime, data = decode_data_url(url)
    image = Image.open(io.BytesIO(data))
    image.load()
    assert image.format == {"image/jpeg": "JPEG", "image/png": "PNG"}[mime]
    return image


def test_encode_image_formats_sizes_and_pixels():
    rng = np.random.default_rng(0)
    screenshot = rng.integers(0, 255, size=(800, 1280, 3), dtype=np.uint8)
    png = _decoded(encode_image(screenshot, image_format="png"))
    assert png.size == (1280, 800) and np.array_equal(np.asarray(png), screenshot)  # PNG is lossless, colours not swapped
    jpeg = _decoded(encode_image(screenshot, max_side=640, jpeg_quality=70))
    assert jpeg.size == (640, 400)
    small = np.zeros((10, 20, 3), np.uint8)
    small[..., 0] = 200  # red stays red through the BGR conversion
    red = np.asarray(_decoded(encode_image(small, max_side=1000)))
    assert red.shape == (10, 20, 3) and red[..., 0].mean() > 150 and red[..., 2].mean() < 50
    assert _decoded(encode_image(np.zeros((5, 5, 4), np.uint8), image_format="png")).mode == "RGBA"
    assert _decoded(encode_image(np.zeros((5, 7), np.uint8))).size == (7, 5)
    with pytest.raises(ValueError, match="image_format"):
        encode_image(small, image_format="gif")
    with pytest.raises(ValueError, match="uint8"):
        encode_image(small.astype(float))
    with pytest.raises(ValueError, match="max_side"):
        encode_image(small, max_side=0)


def test_history_keeps_the_last_n_images_and_never_mutates_earlier_lists():
    history = ChatHistory(ImageOptions(max_images=2))
    history.add_system("sys")
    card = np.full((8, 8, 3), 128, np.uint8)
    history.add_user("first", [("img_0", card)])
    before = history.messages()
    for index in range(1, 4):
        history.add_assistant(f"SAY {index}")
        history.add_user(f"step {index}", [(f"img_{index}", card)])
    messages = history.messages()
    urls = [p for m in messages if isinstance(m["content"], list) for p in m["content"] if p["type"] == "image_url"]
    texts = [p["text"] for m in messages if isinstance(m["content"], list) for p in m["content"] if p["type"] == "text"]
    assert len(urls) == 2 and history.visible_image_ids() == ["img_2", "img_3"]
    assert "[image img_0 omitted]" in texts and "[image img_1 omitted]" in texts
    assert "[img_3]" in texts  # every image is labelled with its id
    assert before[1]["content"][2]["type"] == "image_url"  # the list handed out earlier is unchanged
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user", "assistant", "user"]
    with pytest.raises(ValueError, match="max_images"):
        ImageOptions(max_images=-1)
    zero = ChatHistory(ImageOptions(max_images=0))
    zero.add_user("x", [("img_0", card)])
    assert zero.messages()[0]["content"][-1] == {"type": "text", "text": "[image img_0 omitted]"}


def test_tool_results_answer_their_call_ids_and_images_follow_in_a_user_message():
    history = ChatHistory()
    history.add_user("go")
    history.add_assistant(None, [{"id": "call_7", "function": {"name": "crop", "arguments": {"image": "img_0"}}}])
    assert history.pending_tool_calls() == ["call_7"]
    history.add_tool_result("call_7", "made img_1", [("img_1", np.zeros((4, 4, 3), np.uint8))])
    assert history.pending_tool_calls() == []
    assistant, tool, images = history.messages()[1:]
    assert assistant["content"] is None and assistant["tool_calls"][0]["function"]["arguments"] == '{"image": "img_0"}'
    assert tool == {"role": "tool", "tool_call_id": "call_7", "content": "made img_1"}
    assert images["role"] == "user" and images["content"][-1]["type"] == "image_url"
    assert strip_images(history.messages())[-1]["content"][-1] == {"type": "text", "text": "[image]"}


def test_chat_messages_wrapper_runs_an_assistant_messages_tool_calls_in_order():
    import gymnasium as gym

    env = ChatMessages(gym.make(llm_support.ENV_ID), system=lambda obs, info: f"Task: {obs['text'][:20]}", max_images=3, max_side=64)
    obs, info = env.reset(seed=0, options={"task_id": "echo-02"})
    first = env.messages()
    assert first[0]["role"] == "system" and first[0]["content"].startswith("Task: What word")
    assert _decoded(first[1]["content"][-1]["image_url"]["url"]).size == (64, 32)
    word = env.unwrapped.task["word"]
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "say", "arguments": '{"text": "hi"}'}},
        {"id": "b", "type": "function", "function": {"name": "answer", "arguments": f'{{"word": "{word}"}}'}},
        {"id": "c", "type": "function", "function": {"name": "say", "arguments": '{"text": "late"}'}}]}
    obs, reward, terminated, truncated, info = env.step(message)
    assert terminated and reward == 1.0 and info["chat_steps"] == 2
    tools = [m for m in env.messages() if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["a", "b", "c"]
    assert tools[0]["content"] == "hi" and "You answered" in tools[1]["content"] and tools[2]["content"].startswith("Not run")
    # the card SAY drew reaches the model as an image after the tool message
    assert any(m["role"] == "user" and "tool call a" in m["content"][0]["text"] for m in env.messages())
    # a plain env action works too
    obs, info = env.reset(seed=0, options={"task_id": "echo-02"})
    env.step("SAY hello")
    assert env.messages()[-2] == {"role": "assistant", "content": "SAY hello"}
