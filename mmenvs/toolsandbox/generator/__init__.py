"""MMToolSandbox scenario generator: visually grounded multi-turn scenarios with known answers.

``generate_scenario(seed, flow=…, challenge=…, arrival=…, apps=…, difficulty=…)`` builds one scenario
in the runtime's JSON format (see docs/toolsandbox-generator.md); ``load_suite`` / ``suite_ids``
read the pinned suites in ``registry/toolsandbox/suites``; ``train_scenario(seed)`` draws a fresh
scenario for training, disjoint from the pinned suites; ``breakdown_tables(records)`` cuts eval
results by flow, challenge, arrival, image kind and number of images.
"""

from .images import image_spec, render_spec  # noqa: F401  (registers the "rendered" image generator)
from .analysis import breakdown_tables, plot_breakdown
from .build import ARRIVALS, CHALLENGES, fingerprint, generate_scenario, valid_apps
from .careless import CarelessAgent
from .flows import FLOW_APPS, FLOWS
from .sinks import APP_GROUPS
from .suites import SUITES, load_suite, load_suite_scenario, suite_counts, suite_ids, train_scenario

__all__ = ["APP_GROUPS", "ARRIVALS", "CHALLENGES", "CarelessAgent", "FLOWS", "FLOW_APPS", "SUITES", "breakdown_tables",
           "fingerprint", "generate_scenario", "image_spec", "load_suite", "load_suite_scenario", "plot_breakdown",
           "render_spec", "suite_counts", "suite_ids", "train_scenario", "valid_apps"]
