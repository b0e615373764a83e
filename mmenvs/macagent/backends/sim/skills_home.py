"""The skill library in the sim's episode home: at every reset, the ``SKILL.md`` of each skill whose
commands the sim ships (see :mod:`mmenvs.macagent.skills`) is written under ``~/.openclaw/skills/<name>/``
through the home's confined layer, where OpenClaw-style agents look for them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...skills import HOME_SKILLS, Skill, available
from .apps import shell_commands
from .apps.home_io import save_text

if TYPE_CHECKING:  # pragma: no cover
    from .desktop import Desktop


def shipped_skills() -> tuple[Skill, ...]:
    """The library's skills whose every command the sim answers in its shell."""
    return available(frozenset(shell_commands()))


def install_skills(desk: "Desktop") -> tuple[Skill, ...]:
    """Write the shipped skills' ``SKILL.md`` files into ``desk``'s (fresh) home; returns them."""
    skills = shipped_skills()
    for s in skills:
        save_text(desk.home_files, f"{HOME_SKILLS}/{s.name}/SKILL.md", s.text)
    return skills
