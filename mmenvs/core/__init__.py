"""What all three benchmarks share: spaces, the image store, action parsing, the env base class,
the episode recorder, metrics, the registry and the action declarations (``specs``) prompts and
parsers share."""

from .actions import ActionError, CodeBlock, ToolCall, code_blocks, control_word, extract_answer, extract_code, parse_tool_call
from .env import ActionOutcome, ContractError, Evaluation, InternalFault, MMEnv
from .images import ImageNotFound, ImageRecord, ImageStore
from .metrics import breakdown, mean_ci, pass_at_k, pass_hat_k, summarize_attempts
from .recorder import EpisodeRecorder, read_episode
from .registry import env_specs, load_json, load_jsonl, register_envs, registry_path
from .spaces import UnicodeText, clip_text, image_space, letterbox, to_rgb
from .specs import REQUIRED, FunctionDecl, Param, function_spec, signature_lines

__all__ = [
    "REQUIRED", "ActionError", "ActionOutcome", "CodeBlock", "ContractError", "InternalFault", "EpisodeRecorder", "Evaluation", "FunctionDecl", "ImageNotFound", "ImageRecord",
    "ImageStore", "MMEnv", "Param", "ToolCall", "UnicodeText", "breakdown", "clip_text", "code_blocks", "control_word",
    "env_specs", "extract_answer", "function_spec", "extract_code", "image_space", "letterbox", "load_json", "load_jsonl", "mean_ci",
    "parse_tool_call", "pass_at_k", "pass_hat_k", "read_episode", "register_envs", "registry_path",
    "signature_lines", "summarize_attempts", "to_rgb",
]
