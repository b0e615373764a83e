"""MMToolSandbox scenario generator: visually grounded multi-turn scenarios with known answers.

``generate_scenario(seed, flow=…, challenge=…, arrival=…, apps=…, difficulty=…)`` builds one scenario
in the runtime's JSON format (see docs/toolsandbox-generator.md); ``load_suite`` / ``suite_ids``
read the pinned suites in ``registry/toolsandbox/suites``; ``train_scenario(seed)`` draws a fresh
scenario for training, disjoint from the pinned suites; ``breakdown_tables(records)`` cuts eval
results by flow, challenge, arrival, image kind and number of images.
"""

from .images import image_spec, render_spec  # noqa: F401  (registers the "rendered" image generator)
from .build import ARRIVALS, CHALLENGES, fingerprint, generate_scenario, valid_apps
from .flows import FLOW_APPS, FLOWS
from .sinks import APP_GROUPS

__all__ = ["APP_GROUPS", "ARRIVALS", "CHALLENGES", "FLOWS", "FLOW_APPS", "fingerprint", "generate_scenario", "image_spec",
           "render_spec", "valid_apps"]
