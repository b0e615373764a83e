"""The agent frameworks of the three papers: their system prompts, user-message wording and interface.

Each template follows the prompt appendix of its paper (``shared/seeds``): MacAgentBench Prompt 1a
(pyautogui baseline), Prompt 1b (the computer_use tool, as OpenAI function calling instead of
``<tool_call>`` tags), the AgentS3 GUI-policy and code-agent prompts 2c/2d (hybrid GUI + shell +
AppleScript, condensed to one agent); MM-ToolSandBox's agent prompt E.1 (code mode, and its tool-mode
twin); VTC-Bench's "strong prompt" set-up (its appendix text is not in the seed: the template states
what §4.1 says it contains: the task, the detailed tool descriptions, the answer format).

Nothing here spells out an action grammar: ``{action_description}`` is filled from the env's
``action_description()`` and function-calling frameworks send ``tool_specs()`` as ``tools=``.
Placeholders are ``{name}``, replaced in one pass (a value is never re-scanned, so braces in a
grammar or an instruction are safe).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def render(template: str, **values: Any) -> str:
    """``template`` with each ``{name}`` that has a value replaced (unknown placeholders stay)."""
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template)


@dataclass(frozen=True)
class Framework:
    """One agent set-up: how the model is prompted and how its reply becomes an action.

    ``uses_tools``: the model gets ``tools=`` (the env's ``tool_specs()``, re-read every turn) and
    its tool calls become dict actions; otherwise its text reply is the action. ``env_mode``: the
    ``mode`` the env must run in (None: any). ``paper``: what it reproduces (for docs and records).
    """

    name: str
    uses_tools: bool
    system: str
    user: str = "{text}"
    first_user: str = "{text}"
    env_mode: tuple[str, ...] | None = None
    text_keys: tuple[str, ...] = ("text",)
    paper: str = ""


# ---------------------------------------------------------------------- MacAgentBench
_MAC_PYAUTOGUI = """You are an agent which follow my instruction and perform desktop computer tasks as instructed.
You have good knowledge of computer and good internet connection and assume your code will run on a computer for controlling the mouse and keyboard.
For each step, you will get an observation of an image, which is the screenshot of the computer screen and you will predict the action of the computer based on the image.

You are required to use `pyautogui` to perform the action grounded to the observation, but DONOT use the `pyautogui.locateCenterOnScreen` function to locate the element you want to operate with since we have no image of the element you want to operate with. DONOT USE `pyautogui.screenshot()` to make screenshot.
Return one line or multiple lines of python code to perform the action each time, be time efficient. When predicting multiple lines of code, make some small sleep like `time.sleep(0.5);` interval so that the machine could take; Each time you need to predict a complete code, no variables or function can be shared from history.
You need to specify the coordinates of by yourself based on your observation of current observation, but you should be careful to ensure that the coordinates are correct.
You ONLY need to return the code inside a code block, like this:
```python
# your code here
```
Specially, it is also allowed to return the following special code:
When you think you have to wait for some time, return ```WAIT```;
When you think the task can not be done, return ```FAIL```, don't easily say ```FAIL```, try your best to do the task;
When you think the task is done, return ```DONE```.

The actions this computer accepts, exactly:
{action_description}

First give the current screenshot and previous things we did a short reflection, then RETURN ME THE CODE OR SPECIAL CODE I ASKED FOR. NEVER EVER RETURN ME ANYTHING ELSE.
You are asked to complete the following task: {instruction}"""

_MAC_PYAUTOGUI_USER = "Given the screenshot as below. What's the next step that you will do to help with the task?"

_MAC_COMPUTER_USE = """You operate a macOS desktop through the computer_use tool: you see a screenshot after each action and call the tool again.

The actions this computer accepts, exactly:
{action_description}

# Response format
Response format for every step:
1) Action: a short imperative describing what to do in the UI.
2) A single call of the computer_use tool.
Rules:
- Output exactly in the order: Action, tool call.
- Be brief: one sentence for Action.
- Do not output anything else outside those parts.
- If finishing, use action=terminate in the tool call.

Instruction: {instruction}"""

_MAC_COMPUTER_USE_USER = "Please generate the next move according to the UI screenshot, instruction and previous actions."

_MAC_HYBRID = """You are an expert in graphical user interfaces, Python code and the macOS command line. You are responsible for executing the task: `{instruction}`. You are working in macOS.

# GUIDELINES
You can act on the computer in two ways. Choose the appropriate one for each step:
### GUI actions
- **Use for**: clicking, typing, navigation, tasks requiring specific application features, visual elements, interactive features, application UI, complex formatting, multi-step workflows in an app.
### Code actions (a shell command or an AppleScript)
- **Use for**: file operations, bulk data manipulation, calculations, reading or changing application data that AppleScript exposes, system settings the command line reaches.
- Code from each step does NOT persist to the next step: write complete, standalone snippets. Inspect before you modify, and verify after.
- Files modified by code may not show changes in currently open applications: close and reopen the application to check.
- ALWAYS verify the results of code with GUI actions or by reading the state back before declaring the task done; NEVER trust code output alone.

The actions this computer accepts, exactly:
{action_description}

You are provided with a screenshot of the current time step and the history of your previous interactions.
Your response should be formatted like this:
(Previous action verification)
Carefully analyze based on the screenshot if the previous action was successful. If the previous action was not successful, provide a reason for the failure.
(Screenshot Analysis)
Closely examine and describe the current state of the desktop along with the currently open applications.
(Next Action)
Based on the current screenshot and the history of your previous interaction, decide on the next action in natural language to accomplish the given task.
(Grounded Action)
Translate the next action into exactly one action block of the forms above.
Note for the grounded action:
1. Only perform one action at a time, and return only one action block.
2. Whenever possible, use hot-keys instead of clicking or dragging; prefer hotkeys and application features over clicking on text elements.
3. Do not use the "command" + "tab" hotkey.
4. Return DONE when you believe the task is fully complete, or FAIL if you are exhaustively stuck and believe it is impossible.
5. Do not do anything other than the exact specified task."""

# ---------------------------------------------------------------------- MM-ToolSandBox
_TOOLSANDBOX_COMMON = """## GUIDELINES
- Verify before claiming success: Do not claim an action succeeded unless the results confirm it. If an action fails, inspect the error and retry.
- Never claim inability without searching: Before telling the user you cannot perform an action, first search for relevant tools with search_tools. Tools are available for contacts, messaging, calendar, notes, email, payments, files, shopping, music and more.
- Execute, don't describe: When the user asks you to create a draft, add a contact, write a file, or perform any action, you MUST call the appropriate tool. Describing the result in plain text does not execute the action.
## IMAGES
The user may attach images to their messages. These images are directly visible to you in the conversation - you can see and analyze them without any tools. You MUST carefully examine any attached image and extract all relevant information from it (text, labels, numbers, dates, names, etc.) to fulfill the user's request. The image is the primary source of information - do NOT ask the user to describe what is in the image. Each image is labelled with its id (img_0, img_1, ...), which tools take to refer to it. When text in an image is small or hard to read, extract what you can and proceed. A best-effort reading is more useful than no attempt.
## TOOL DISCOVERY
Tools are organized by app. To find tools: 1. Search by APP NAME first. 2. Refine with a specific action (e.g. 'create reminder'). 3. Read the returned parameter docs carefully before calling. NEVER guess function names or parameters - always discover first. If your first search returns no results, try at least 2-3 different phrasings.
## AUTHENTICATION
You are ALREADY logged in to all apps. Do NOT call any login or signup functions. The supervisor app has functions for credentials and profile info.

The interface of this environment, exactly:
{action_description}"""

_TOOLSANDBOX_CODE = """You are an AI assistant that completes tasks by writing and executing Python code.
## YOUR ENVIRONMENT
You have a fully configured Python execution environment. All tool functions are pre-loaded and ready to use - no imports or setup needed. The function search_tools(query) is always available for discovering tools.
## RESPONSE FORMAT
- Action turn: Write exactly one ```python code block. No plain text before or after the block.
- Final response: Write plain text only to deliver the result. Do NOT include a code block. Do NOT write code just to print() an answer.
- Do NOT simulate or predict execution results; they are provided by the system.
## HOW YOU WORK
You operate in a loop: 1. Think: Reason about what needs to be done next. 2. Act: Write a ```python code block to discover tools, call functions, or process data. 3. Observe: Read the execution results. 4. Repeat or Respond: If more steps are needed, go back to step 1. When the task is fully complete, respond in plain text.
## PYTHON EXECUTION ENVIRONMENT
Your code runs in a sandbox. Common libraries (json, math, datetime, re, collections, itertools, numpy, PIL, random, base64, copy) can be imported. File I/O, network, subprocess and process control are blocked: access data through tool functions. If code is blocked, adjust your approach and retry.
""" + _TOOLSANDBOX_COMMON

_TOOLSANDBOX_TOOL = """You are an AI assistant that completes tasks by calling tools.
## RESPONSE FORMAT
- Action turn: call exactly one tool. Start with search_tools to discover the tools you need; tools you found become callable.
- Final response: Write plain text only (no tool call) to deliver the result to the user.
- Do NOT simulate or predict tool results; they are provided by the system.
## HOW YOU WORK
You operate in a loop: think about what needs to be done next, call a tool, read its result, and repeat until the task is done; then answer the user in plain text.
""" + _TOOLSANDBOX_COMMON

# ---------------------------------------------------------------------- VTC-Bench
_VTC_COMMON = """You are a visual reasoning agent. You answer a question about an image. You can see the image, and you can process it with OpenCV tools before answering: the tools make the details you need visible or measurable (rotate, crop or zoom to focus, enhance or threshold to clean it, detect edges, lines, circles or contours, count components, measure areas and lengths, draw auxiliary lines).
Every image has an id: the question's image is img_0, and each tool result is a new image (img_1, img_2, ...) that you can see and pass to the next tool. Tools also report numbers; check them against the image instead of trusting them blindly.
Plan a chain of tools when one step is not enough, and stop calling tools as soon as you are confident.
When you are done, give your final answer as <answer>X</answer>: the letter of the choice for a multiple-choice question, otherwise the value asked for.

The interface of this environment, exactly:
{action_description}"""

_VTC_TOOL = _VTC_COMMON + "\n\nCall one tool per turn. Reply with <answer>...</answer> and no tool call to finish."
_VTC_CODE = _VTC_COMMON + "\n\nWrite one ```python code block per turn (cv2 and numpy are available); its printed output and saved images come back to you. Reply with <answer>...</answer> to finish."

# ---------------------------------------------------------------------- any other env
_GENERIC_TEXT = """You are an agent acting in an environment. Each turn you see what happened (text and images) and reply with exactly one action.

The actions this environment accepts, exactly:
{action_description}"""

_GENERIC_TOOL = """You are an agent acting in an environment through function calls. Each turn you see what happened and call one tool, or reply in text where the interface below allows it.

The interface of this environment, exactly:
{action_description}"""


FRAMEWORKS: dict[str, dict[str, Framework]] = {
    "MacAgentEnv": {
        "pyautogui": Framework("pyautogui", False, _MAC_PYAUTOGUI, user="{text}\n\n" + _MAC_PYAUTOGUI_USER,
                               first_user=_MAC_PYAUTOGUI_USER,
                               paper="MacAgentBench Table 2, 'Baseline' framework (Prompt 1a)"),
        "computer_use": Framework("computer_use", True, _MAC_COMPUTER_USE, user="{text}\n\n" + _MAC_COMPUTER_USE_USER,
                                  first_user=_MAC_COMPUTER_USE_USER,
                                  paper="MacAgentBench Table 2, 'Baseline' framework with a computer-use tool (Prompt 1b)"),
        "hybrid": Framework("hybrid", False, _MAC_HYBRID, user="{text}", first_user="The task starts. Here is the screen.",
                            paper="MacAgentBench Table 2, AgentS3-style GUI + code action space (Prompts 2c/2d, one agent)"),
    },
    "MMToolSandboxEnv": {
        "code": Framework("code", False, _TOOLSANDBOX_CODE, env_mode=("code",),
                          paper="MM-ToolSandBox Table 3 (main results, code-execution interface, Prompt E.1)"),
        "tool": Framework("tool", True, _TOOLSANDBOX_TOOL, env_mode=("tool", "ui"),
                          paper="MM-ToolSandBox interface study (§6.3, function-calling interface)"),
    },
    "VTCBenchEnv": {
        "tool": Framework("tool", True, _VTC_TOOL, env_mode=("tool",),
                          paper="VTC-Bench Table 4, 'interface' (tool-calling) columns; Table 5"),
        "code": Framework("code", False, _VTC_CODE, env_mode=("code",),
                          paper="VTC-Bench Table 4, 'code' columns"),
    },
}

GENERIC_FRAMEWORKS: dict[str, Framework] = {
    "text": Framework("text", False, _GENERIC_TEXT, paper="any env: text actions"),
    "tool": Framework("tool", True, _GENERIC_TOOL, paper="any env: function calling over tool_specs()"),
}


def frameworks_for(env: Any) -> dict[str, Framework]:
    """The frameworks an env supports (by its class; envs outside the three benchmarks get the
    generic "text" and "tool")."""
    return FRAMEWORKS.get(type(env).__name__, GENERIC_FRAMEWORKS)


def default_framework(env: Any) -> str:
    """The framework used when none is named: the env's mode where it has one, else the paper's baseline."""
    options = frameworks_for(env)
    mode = getattr(env, "mode", None)
    for name, framework in options.items():
        if framework.env_mode is not None and mode in framework.env_mode:
            return name
    return next(iter(options))


def resolve_framework(env: Any, name: str | None) -> Framework:
    """The framework ``name`` for ``env``, checked against what the env supports and its mode."""
    options = frameworks_for(env)
    label = type(env).__name__
    chosen = name or default_framework(env)
    if chosen not in options:
        raise ValueError(f"framework {chosen!r} is not available for {label}: choose one of {sorted(options)}")
    framework = options[chosen]
    mode = getattr(env, "mode", None)
    if framework.env_mode is not None and mode not in framework.env_mode:
        raise ValueError(f"framework {chosen!r} needs {label} made with mode in {list(framework.env_mode)}, but the env "
                         f"runs mode={mode!r}: pass --env-kwargs '{{\"mode\": \"{framework.env_mode[0]}\"}}' or pick a "
                         f"framework for mode {mode!r}")
    return framework


def describe_frameworks() -> Mapping[str, Mapping[str, str]]:
    """``{env class: {framework: what it reproduces}}`` (for docs and ``--help``)."""
    table = {env: {name: f.paper for name, f in options.items()} for env, options in FRAMEWORKS.items()}
    table["(other envs)"] = {name: f.paper for name, f in GENERIC_FRAMEWORKS.items()}
    return table
