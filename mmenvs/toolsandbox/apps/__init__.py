"""The hand-written tools of every app; importing this package registers them in ``tools.REGISTERED``.

One module per domain, named for the app whose tools it holds (``contacts``, ``messaging``, ``phone``,
``reminders``, ``calendar``, ``settings``, ``notes``, ``todo``, ``email``, ``payments``, ``expenses``,
``shopping``, ``music``, ``files``, ``profile``, ``photos``) and ``visual`` (the image tools of the
paper's Table 13); ``shared`` holds the helpers several domains use (checks of phone numbers, email
addresses and money amounts; rows in a time range). The catalogue orders tools by app and name, so the import order below does not matter.
"""

from . import (  # noqa: F401
    calendar, contacts, email, expenses, files, messaging, music, notes, payments, phone, photos, profile, reminders,
    settings, shopping, todo, visual,
)

__all__ = [
    "calendar", "contacts", "email", "expenses", "files", "messaging", "music", "notes", "payments", "phone", "photos",
    "profile", "reminders", "settings", "shopping", "todo", "visual",
]
