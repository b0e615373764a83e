"""Image renderers for MMToolSandbox scenarios: every image is drawn from known facts.

Each renderer is ``render_<kind>(rng, *, facts=None, difficulty=0.0, size=None) -> Rendered``:

* ``rng`` — a ``numpy.random.Generator``; the same generator state gives byte-identical images;
* ``facts`` — what to draw (the scenario generator decides the facts first); ``None`` samples
  plausible facts from ``rng``. Given facts come back unchanged in ``Rendered.facts``;
* ``difficulty`` in [0, 1] — scales rotation, perspective, blur, noise, low contrast, JPEG artefacts
  and distractor text (ads, coupons, banners); 0 is a clean image;
* ``size`` — optional ``(width, height)``: the image is scaled to fit and padded, boxes follow.

``Rendered.boxes`` holds the pixel box of every key fact under a dotted path into ``facts``
(``"total"``, ``"items.2.amount"``), for crop tools, UI and tests.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import charts, documents, events, handwriting, products, screens, vocab
from .base import DrawCall, Rendered, record_draw_calls
from .charts import render_bar_chart, render_line_chart, render_pie_chart
from .documents import render_business_card, render_document_page, render_invoice, render_receipt, render_restaurant_menu
from .events import render_event_poster, render_ticket
from .handwriting import render_handwritten_note
from .products import render_product_card, render_shopping_page_screenshot
from .screens import render_calendar_screenshot, render_chat_screenshot

RENDERERS: dict[str, Callable[..., Rendered]] = {
    "receipt": render_receipt,
    "invoice": render_invoice,
    "event_poster": render_event_poster,
    "ticket": render_ticket,
    "product_card": render_product_card,
    "business_card": render_business_card,
    "restaurant_menu": render_restaurant_menu,
    "bar_chart": render_bar_chart,
    "line_chart": render_line_chart,
    "pie_chart": render_pie_chart,
    "document_page": render_document_page,
    "handwritten_note": render_handwritten_note,
    "chat_screenshot": render_chat_screenshot,
    "shopping_page_screenshot": render_shopping_page_screenshot,
    "calendar_screenshot": render_calendar_screenshot,
}

#: ``sample_<kind>_facts(rng) -> dict``: the facts a renderer would draw without ``facts=``; a
#: generator can sample, adjust (plant a target, a distractor) and pass the result back in.
SAMPLERS: dict[str, Callable[[np.random.Generator], dict[str, Any]]] = {
    kind: getattr(module, f"sample_{kind}_facts")
    for module in (charts, documents, events, handwriting, products, screens)
    for kind in RENDERERS
    if hasattr(module, f"sample_{kind}_facts")
}

#: Kinds grouped the way the paper groups image sources (App. D.4), for analysis cuts.
CATEGORIES: dict[str, str] = {
    "receipt": "natural_text_rich", "event_poster": "natural_text_rich", "ticket": "natural_text_rich",
    "business_card": "natural_text_rich", "restaurant_menu": "natural_text_rich", "handwritten_note": "natural_text_rich",
    "product_card": "natural_less_text",
    "invoice": "docs_charts_tables", "document_page": "docs_charts_tables", "bar_chart": "docs_charts_tables",
    "line_chart": "docs_charts_tables", "pie_chart": "docs_charts_tables",
    "chat_screenshot": "ui", "shopping_page_screenshot": "ui", "calendar_screenshot": "ui",
}


def _renderer_of(kind: str) -> Callable[..., Rendered]:
    try:
        return RENDERERS[kind]
    except (KeyError, TypeError):
        raise ValueError(f"unknown image kind {kind!r}; valid kinds: {', '.join(sorted(RENDERERS))}") from None


def sample_facts(kind: str, rng: np.random.Generator) -> dict[str, Any]:
    """Plausible facts for an image of ``kind``, as its renderer would sample them."""
    _renderer_of(kind)
    return SAMPLERS[kind](rng)


def render(kind: str, rng: np.random.Generator, **kwargs: Any) -> Rendered:
    """Render one image of ``kind`` (see ``RENDERERS``); keyword arguments go to the renderer."""
    return _renderer_of(kind)(rng, **kwargs)


__all__ = [
    "CATEGORIES", "DrawCall", "RENDERERS", "Rendered", "SAMPLERS", "record_draw_calls", "render", "sample_facts", "vocab",
    "render_bar_chart", "render_business_card", "render_calendar_screenshot", "render_chat_screenshot", "render_document_page",
    "render_event_poster", "render_handwritten_note", "render_invoice", "render_line_chart", "render_pie_chart",
    "render_product_card", "render_receipt", "render_restaurant_menu", "render_shopping_page_screenshot", "render_ticket",
]
