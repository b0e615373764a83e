"""MacAgent's skill library: the ``SKILL.md`` files an OpenClaw-style agent reads before using a skill's
command-line tool (MacAgentBench Appendix C.3: OpenClaw's shipped skills, listed in its system prompt as
``<available_skills>`` with a name, a one-line description and the file's location).

Each skill is one folder of ``mmenvs/macagent/skill_library/<name>/`` holding its ``SKILL.md``: YAML front
matter with ``name``, ``description`` and ``metadata`` (one JSON line, ``{"openclaw": {"requires":
{"bins": [...]}}}``: the commands the skill needs), then the instructions. Adding a skill = adding that
folder; nothing else changes. A backend installs in the episode home the skills whose commands it
ships (the sim: under ``~/.openclaw/skills/<name>/SKILL.md``, OpenClaw's managed-skills folder), and the
``"hybrid"`` action description lists them (:func:`describe_skills`).

This module is backend-neutral: it reads the library and renders the list; it never touches a home.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from mmenvs.core.confined import ConfinedDir

LIBRARY = Path(__file__).with_name("skill_library")
#: where the skills live in the episode home (relative to it), as OpenClaw's managed skills do
HOME_SKILLS = ".openclaw/skills"
_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)


@dataclass(frozen=True)
class Skill:
    """One skill: ``name`` (its folder), ``description`` (one line), ``bins`` (the commands it needs) and
    ``text`` (the whole ``SKILL.md``)."""

    name: str
    description: str
    bins: tuple[str, ...]
    text: str

    @property
    def location(self) -> str:
        """The file as the agent finds it: ``~/.openclaw/skills/<name>/SKILL.md``."""
        return f"~/{HOME_SKILLS}/{self.name}/SKILL.md"


def parse_skill(text: str, source: str) -> Skill:
    """A ``SKILL.md``'s skill; ``ValueError`` naming ``source`` and the field when the front matter is wrong."""
    m = _FRONT.match(text)
    if not m:
        raise ValueError(f"{source}: a SKILL.md starts with YAML front matter between '---' lines")
    fields: dict[str, str] = {}
    for line in m.group(1).split("\n"):
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t")):
            fields[key.strip()] = value.strip()
    name, desc = fields.get("name", ""), fields.get("description", "").strip("\"'")
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", name):
        raise ValueError(f"{source}: field 'name' must be a lowercase skill name (letters, digits, '-'), got {name!r}")
    if not desc or "\n" in desc:
        raise ValueError(f"{source}: field 'description' must be one non-empty line")
    try:
        meta = json.loads(fields.get("metadata", "{}"))
        bins = meta.get("openclaw", {}).get("requires", {}).get("bins", [])
    except (ValueError, AttributeError):
        raise ValueError(f"{source}: field 'metadata' must be one line of JSON "
                         '({"openclaw": {"requires": {"bins": [...]}}})') from None
    if not isinstance(bins, list) or not all(isinstance(b, str) and b for b in bins):
        raise ValueError(f"{source}: metadata.openclaw.requires.bins must be a list of command names")
    return Skill(name, desc, tuple(bins), text)


@cache
def library() -> tuple[Skill, ...]:
    """Every skill of the library, by name (read through a confined layer over the package folder: a
    symlink in it is not followed)."""
    files = ConfinedDir(LIBRARY, display="skill_library")
    out = []
    for entry in sorted((e for e in files.listdir(".") if e.kind == "dir"), key=lambda e: e.name):
        if files.kind(f"{entry.name}/SKILL.md") != "file":
            continue
        source = f"skill_library/{entry.name}/SKILL.md"
        skill = parse_skill(files.read_bytes(f"{entry.name}/SKILL.md", limit=1_000_000).decode("utf-8"), source)
        if skill.name != entry.name:
            raise ValueError(f"{source}: name {skill.name!r} must be the folder's name")
        out.append(skill)
    return tuple(out)


def available(commands: set[str] | frozenset[str]) -> tuple[Skill, ...]:
    """The skills whose every required command is among ``commands`` (what a backend ships)."""
    return tuple(s for s in library() if all(b in commands for b in s.bins))


def describe_skills(skills: tuple[Skill, ...]) -> str:
    """The skill list for an agent's prompt, as OpenClaw gives it (``<available_skills>``), or ""."""
    if not skills:
        return ""
    rows = "\n".join(f"<skill><name>{s.name}</name><description>{s.description}</description>"
                     f"<location>{s.location}</location></skill>" for s in skills)
    return ("Skills: each of these command-line tools has a SKILL.md with its instructions. When one clearly "
            "applies, read its SKILL.md first (e.g. `cat` the location in a ```bash block), then follow it.\n"
            f"<available_skills>\n{rows}\n</available_skills>")
