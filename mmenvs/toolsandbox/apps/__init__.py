"""The hand-written tools of every app; importing this package registers them in ``tools.REGISTERED``.

One module per group of apps: ``personal`` (contacts, messaging, phone, reminders, profile),
``organizer`` (calendar, settings, notes, todo), ``commerce`` (email, payments, expenses, shopping),
``media`` (music, files, photos) and ``visual`` (the image tools of the paper's Table 13).
"""

from . import commerce, media, organizer, personal, visual  # noqa: F401

__all__ = ["commerce", "media", "organizer", "personal", "visual"]
