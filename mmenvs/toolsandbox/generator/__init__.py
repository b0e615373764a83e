"""MMToolSandbox scenario generator: visually grounded multi-turn scenarios with known answers.

``generate_scenario(seed, flow=…, challenge=…, arrival=…, apps=…, difficulty=…)`` builds one scenario
in the runtime's JSON format (see docs/toolsandbox-generator.md); ``train_scenario(seed)`` draws a fresh
scenario for training, disjoint from the pinned suites; ``suites.build_suite`` and
``ui_convert.build_ui_suite`` rebuild the stored suites. Re-exported from the runtime (which never
imports this package): ``load_suite`` / ``suite_ids`` (:mod:`mmenvs.toolsandbox.suites`, the reader of
the stored suites) and ``breakdown_tables(records)`` (:mod:`mmenvs.toolsandbox.analysis`, eval results
cut by flow, challenge, arrival, image kind and number of images).
"""

from .images import image_spec, render_spec
from ..analysis import breakdown_tables, plot_breakdown
from ..suites import fingerprint, load_suite, load_suite_scenario, suite_ids
from .build import ARRIVALS, CHALLENGES, generate_scenario, valid_apps
from .careless import CarelessAgent
from .flows import FLOW_APPS, FLOWS
from .sinks import APP_GROUPS
from .suites import SUITES, suite_counts, train_scenario

__all__ = ["APP_GROUPS", "ARRIVALS", "CHALLENGES", "CarelessAgent", "FLOWS", "FLOW_APPS", "SUITES", "breakdown_tables",
           "fingerprint", "generate_scenario", "image_spec", "load_suite", "load_suite_scenario", "plot_breakdown",
           "render_spec", "suite_counts", "suite_ids", "train_scenario", "valid_apps"]
