"""The world's tables: one typed table per entity kind across the 16 app domains.

Each table is declared once here; the SQL schema, the value conversion between Python and SQLite,
the generic tools (list/search/get/create/update/delete/…, see ``crud.py``) and the column kinds the
entity-diff scorer needs all derive from these declarations.

Column ``type`` is the storage/Python type:
``int``, ``real``, ``text``, ``bool`` (stored 0/1), ``list`` (a JSON array stored as text),
``json`` (any JSON value stored as text), ``datetime`` (``YYYY-MM-DDTHH:MM:SS``), ``date`` (``YYYY-MM-DD``),
``time`` (``HH:MM``), ``ref`` (the integer id of a row of ``ref_table``).
Column ``kind`` is how the scorer compares values (``id|enum|number|bool|list|text|datetime|json|bookkeeping``).
Every table has an integer primary key ``id``.
"""

from __future__ import annotations

from dataclasses import dataclass

# Generic operations a table may expose (crud.py turns each into tools).
READ_OPS = ("list", "search", "get", "get_many", "count")
WRITE_OPS = ("create", "update", "delete", "delete_many")
ALL_OPS = READ_OPS + WRITE_OPS

_DEFAULT_KIND = {
    "int": "number", "real": "number", "text": "text", "bool": "bool", "list": "list", "json": "json",
    "datetime": "datetime", "date": "datetime", "time": "enum", "ref": "id",
}
_SQL_TYPE = {"int": "INTEGER", "real": "REAL", "bool": "INTEGER", "ref": "INTEGER"}


@dataclass(frozen=True)
class Column:
    """One column: storage ``type``, scoring ``kind``, a one-line ``doc`` and the rules tools enforce."""

    name: str
    type: str
    doc: str
    kind: str = ""
    required: bool = False  # must be given on create
    enum: tuple[str, ...] | None = None
    default: object = None
    ref_table: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    toggle: bool = False  # bool column that gets its own set_<flag> tool
    list_ops: bool = False  # list column that gets add_/remove_ tools
    lookup: bool = False  # identifier column that gets a get_<entity>_by_<column> tool

    @property
    def score_kind(self) -> str:
        if self.kind:
            return self.kind
        if self.enum is not None:
            return "enum"
        return _DEFAULT_KIND[self.type]

    @property
    def sql_type(self) -> str:
        return _SQL_TYPE.get(self.type, "TEXT")


@dataclass(frozen=True)
class Table:
    """One entity table of one app.

    ``ops`` lists the generic operations exposed as tools; ``singleton`` tables hold exactly one row
    (id 1, e.g. the device settings) and only get ``get``/``update``.
    """

    name: str
    app: str
    entity: str
    plural: str
    doc: str
    columns: tuple[Column, ...]
    ops: tuple[str, ...] = ALL_OPS
    singleton: bool = False

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(f"table {self.name!r} has no column {name!r}; columns: {', '.join(c.name for c in self.columns)}")

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def text_columns(self) -> list[str]:
        return [c.name for c in self.columns if c.type in ("text", "list") and c.score_kind != "bookkeeping"]


def C(name: str, type: str, doc: str, **kw: object) -> Column:  # noqa: N802 - short constructor keeps the table list readable
    return Column(name, type, doc, **kw)  # type: ignore[arg-type]


def _created() -> Column:
    return C("created_at", "datetime", "when the row was created (set automatically)", kind="bookkeeping")


def _updated() -> Column:
    return C("updated_at", "datetime", "when the row last changed (set automatically)", kind="bookkeeping")


WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_RO = ("list", "search", "get", "get_many", "count")

TABLES: tuple[Table, ...] = (
    # ------------------------------------------------------------------ contacts
    Table("contacts", "contacts", "contact", "contacts", "People in the user's address book.", (
        C("name", "text", "full name", required=True),
        C("phone_number", "text", "phone number, e.g. +1-555-0100", kind="id", lookup=True),
        C("email", "text", "email address", kind="id", lookup=True),
        C("relationship", "text", "how the user knows them", enum=("friend", "family", "coworker", "business", "other"), default="other"),
        C("company", "text", "employer or business name"),
        C("job_title", "text", "job title"),
        C("address", "text", "postal address"),
        C("birthday", "date", "birthday (YYYY-MM-DD)"),
        C("notes", "text", "free-form notes"),
        C("is_favorite", "bool", "shown among favourites", default=False, toggle=True),
        _created(),
    )),
    # ------------------------------------------------------------------ messaging
    Table("messages", "messaging", "message", "messages", "Text messages sent and received on the phone.", (
        C("sender_phone_number", "text", "phone number of the sender ('self' number for sent messages)", kind="id"),
        C("recipient_phone_number", "text", "phone number of the recipient", kind="id"),
        C("content", "text", "message text"),
        C("attachments", "list", "image ids attached to the message"),
        C("is_read", "bool", "whether the message was read", default=False),
        C("sent_at", "datetime", "when it was sent (set automatically)", kind="bookkeeping"),
    ), ops=("list", "search", "get", "get_many", "count", "delete", "delete_many")),
    # ------------------------------------------------------------------ phone
    Table("calls", "phone", "call", "calls", "The phone's call log.", (
        C("phone_number", "text", "the other party's number", kind="id"),
        C("direction", "text", "call direction", enum=("incoming", "outgoing", "missed")),
        C("duration_seconds", "int", "length of the call in seconds", minimum=0, default=0),
        C("started_at", "datetime", "when the call started", kind="bookkeeping"),
    ), ops=("list", "search", "get", "get_many", "count", "delete", "delete_many")),
    Table("alarms", "phone", "alarm", "alarms", "Clock alarms.", (
        C("time", "time", "alarm time HH:MM (24 h)", required=True),
        C("label", "text", "label shown when it rings"),
        C("enabled", "bool", "whether the alarm is on", default=True, toggle=True),
        C("repeat_days", "list", "weekdays it repeats on (mon … sun); empty = once", list_ops=True),
        C("snooze_minutes", "int", "snooze length in minutes", minimum=1, maximum=60, default=9),
        _created(),
    )),
    # ------------------------------------------------------------------ reminders
    Table("reminders", "reminders", "reminder", "reminders", "Timed (and optionally located) reminders.", (
        C("content", "text", "what to be reminded of", required=True),
        C("reminder_time", "datetime", "when to remind (YYYY-MM-DDTHH:MM:SS)", required=True),
        C("location_name", "text", "place the reminder is tied to"),
        C("latitude", "real", "latitude of the place", minimum=-90, maximum=90),
        C("longitude", "real", "longitude of the place", minimum=-180, maximum=180),
        C("is_completed", "bool", "whether it is done", default=False, toggle=True),
        _created(),
    )),
    # ------------------------------------------------------------------ calendar
    Table("calendar_events", "calendar", "event", "events", "Calendar events (optionally recurring).", (
        C("title", "text", "event title", required=True),
        C("start", "datetime", "start (YYYY-MM-DDTHH:MM:SS)", required=True),
        C("end", "datetime", "end (YYYY-MM-DDTHH:MM:SS), after start", required=True),
        C("location", "text", "where it takes place"),
        C("description", "text", "details"),
        C("attendees", "list", "attendee names or emails", list_ops=True),
        C("calendar", "text", "which calendar", enum=("personal", "work", "family"), default="personal"),
        C("all_day", "bool", "all-day event", default=False),
        C("recurrence", "text", "repeat rule", enum=("none", "daily", "weekly", "monthly", "yearly"), default="none"),
        C("recurrence_end", "date", "last date of the recurrence (YYYY-MM-DD)"),
        _created(),
    )),
    # ------------------------------------------------------------------ settings
    Table("device_settings", "settings", "device_settings", "device_settings", "The phone's settings (one row).", (
        C("wifi", "bool", "Wi-Fi on", default=True),
        C("cellular", "bool", "cellular data on", default=True),
        C("bluetooth", "bool", "Bluetooth on", default=False),
        C("location_service", "bool", "location services on", default=True),
        C("low_battery_mode", "bool", "low-power mode on", default=False),
        C("do_not_disturb", "bool", "do-not-disturb on", default=False),
        C("airplane_mode", "bool", "airplane mode on", default=False),
        C("brightness", "int", "screen brightness 0-100", minimum=0, maximum=100, default=70),
        C("volume", "int", "media volume 0-100", minimum=0, maximum=100, default=50),
    ), ops=("get", "update"), singleton=True),
    # ------------------------------------------------------------------ notes
    Table("notes", "notes", "note", "notes", "Notes (simple note app).", (
        C("title", "text", "note title", required=True),
        C("content", "text", "note body", default=""),
        C("tags", "list", "tags", list_ops=True),
        C("is_pinned", "bool", "pinned to the top", default=False, toggle=True),
        _created(), _updated(),
    )),
    # ------------------------------------------------------------------ todo
    Table("todo_projects", "todo", "project", "projects", "To-do projects.", (
        C("name", "text", "project name", required=True),
        C("color", "text", "colour", enum=("grey", "red", "orange", "yellow", "green", "blue", "violet"), default="grey"),
        C("view_style", "text", "layout", enum=("list", "board"), default="list"),
        C("is_favorite", "bool", "in favourites", default=False, toggle=True),
        C("is_archived", "bool", "archived", default=False, toggle=True),
        _created(),
    )),
    Table("todo_sections", "todo", "section", "sections", "Sections inside a to-do project.", (
        C("project_id", "ref", "project it belongs to", ref_table="todo_projects", required=True),
        C("name", "text", "section name", required=True),
        C("position", "int", "order inside the project", minimum=0, default=0),
    )),
    Table("todo_tasks", "todo", "task", "tasks", "To-do tasks.", (
        C("content", "text", "task title", required=True),
        C("description", "text", "details", default=""),
        C("project_id", "ref", "project (none = inbox)", ref_table="todo_projects"),
        C("section_id", "ref", "section inside the project", ref_table="todo_sections"),
        C("parent_id", "ref", "parent task for a sub-task", ref_table="todo_tasks"),
        C("due_date", "date", "due date (YYYY-MM-DD)"),
        C("priority", "int", "1 (normal) … 4 (urgent)", minimum=1, maximum=4, default=1),
        C("labels", "list", "label names", list_ops=True),
        C("is_completed", "bool", "done", default=False, toggle=True),
        _created(),
    )),
    Table("todo_labels", "todo", "label", "labels", "Labels for to-do tasks.", (
        C("name", "text", "label name", required=True),
        C("color", "text", "colour", enum=("grey", "red", "orange", "yellow", "green", "blue", "violet"), default="grey"),
        C("is_favorite", "bool", "in favourites", default=False),
    )),
    Table("todo_comments", "todo", "comment", "comments", "Comments on to-do tasks.", (
        C("task_id", "ref", "task commented on", ref_table="todo_tasks", required=True),
        C("content", "text", "comment text", required=True),
        C("posted_at", "datetime", "when posted (set automatically)", kind="bookkeeping"),
    )),
    # ------------------------------------------------------------------ email
    Table("email_labels", "email", "label", "labels", "Mailbox labels.", (
        C("name", "text", "label name", required=True),
        C("color", "text", "colour", enum=("grey", "red", "orange", "yellow", "green", "blue", "violet"), default="grey"),
    )),
    Table("email_threads", "email", "thread", "threads", "Email conversations.", (
        C("subject", "text", "subject line"),
        C("labels", "list", "label names", list_ops=True),
        C("is_starred", "bool", "starred", default=False, toggle=True),
        C("is_archived", "bool", "archived (out of the inbox)", default=False, toggle=True),
        C("is_read", "bool", "read", default=False, toggle=True),
        _updated(),
    ), ops=("list", "search", "get", "get_many", "count", "update", "delete", "delete_many")),
    Table("emails", "email", "email", "emails", "Individual emails (sent and received) inside threads.", (
        C("thread_id", "ref", "thread it belongs to", ref_table="email_threads"),
        C("sender", "text", "sender address", kind="id"),
        C("recipients", "list", "recipient addresses"),
        C("cc", "list", "cc addresses"),
        C("subject", "text", "subject"),
        C("body", "text", "body text"),
        C("attachments", "list", "image ids attached"),
        C("sent_at", "datetime", "when sent (set automatically)", kind="bookkeeping"),
    ), ops=_RO + ("delete",)),
    Table("email_drafts", "email", "draft", "drafts", "Unsent email drafts.", (
        C("recipients", "list", "recipient addresses", list_ops=True),
        C("cc", "list", "cc addresses"),
        C("subject", "text", "subject", default=""),
        C("body", "text", "body text", default=""),
        C("attachments", "list", "image ids attached"),
        C("thread_id", "ref", "thread this replies to", ref_table="email_threads"),
        _updated(),
    )),
    # ------------------------------------------------------------------ payments
    Table("payment_users", "payments", "user", "users", "People the user can pay or request money from.", (
        C("display_name", "text", "name shown", required=True),
        C("username", "text", "unique @handle without the @", kind="id", required=True, lookup=True),
        C("phone_number", "text", "phone number", kind="id", lookup=True),
        C("email", "text", "email address", kind="id"),
        C("is_friend", "bool", "in the user's friend list", default=False, toggle=True),
    )),
    Table("payment_transactions", "payments", "transaction", "transactions", "Money sent and received.", (
        C("counterparty", "text", "username of the other party", kind="id"),
        C("direction", "text", "sent or received", enum=("sent", "received")),
        C("amount", "real", "amount in dollars", minimum=0),
        C("note", "text", "what it was for"),
        C("privacy", "text", "who can see it", enum=("public", "friends", "private"), default="private"),
        C("funding_source", "text", "balance or card", enum=("balance", "card"), default="balance"),
        C("created_at", "datetime", "when it happened (set automatically)", kind="bookkeeping"),
    ), ops=_RO),
    Table("payment_requests", "payments", "request", "requests", "Money requests, incoming and outgoing.", (
        C("counterparty", "text", "username of the other party", kind="id"),
        C("direction", "text", "incoming (they ask you) or outgoing (you ask them)", enum=("incoming", "outgoing")),
        C("amount", "real", "amount in dollars", minimum=0),
        C("note", "text", "what it is for"),
        C("status", "text", "state", enum=("pending", "paid", "declined", "cancelled"), default="pending"),
        _created(),
    ), ops=_RO),
    Table("wallet", "payments", "wallet", "wallet", "The payment app balance (one row).", (
        C("balance", "real", "available balance in dollars (derived by transactions; not compared)", minimum=0, default=0.0, kind="bookkeeping"),
        C("currency", "text", "currency", enum=("USD",), default="USD"),
    ), ops=("get",), singleton=True),
    # ------------------------------------------------------------------ expense splitting
    Table("expense_groups", "expenses", "group", "groups", "Groups that share expenses.", (
        C("name", "text", "group name", required=True),
        C("members", "list", "member names (the user is 'me')", list_ops=True),
        C("group_type", "text", "kind of group", enum=("home", "trip", "couple", "other"), default="other"),
        C("simplify_debts", "bool", "simplify debts", default=True),
        _created(),
    )),
    Table("expenses", "expenses", "expense", "expenses", "Shared expenses and how they are split.", (
        C("group_id", "ref", "group", ref_table="expense_groups", required=True),
        C("description", "text", "what was bought", required=True),
        C("amount", "real", "total amount", minimum=0, required=True),
        C("paid_by", "text", "member who paid", kind="enum", required=True),
        C("shares", "json", "owed amount per member, e.g. {\"me\": 10.0, \"Ana\": 10.0}"),
        C("category", "text", "category", enum=("food", "groceries", "rent", "utilities", "transport", "entertainment", "travel", "other"), default="other"),
        C("date", "date", "date of the expense (YYYY-MM-DD)"),
        C("notes", "text", "notes"),
        C("receipt_image_id", "text", "image id of the receipt", kind="id"),
        _created(),
    )),
    Table("settlements", "expenses", "settlement", "settlements", "Payments that settle debts inside a group.", (
        C("group_id", "ref", "group", ref_table="expense_groups", required=True),
        C("payer", "text", "member who pays", kind="enum", required=True),
        C("payee", "text", "member who receives", kind="enum", required=True),
        C("amount", "real", "amount", minimum=0, required=True),
        C("date", "date", "date (YYYY-MM-DD)"),
    ), ops=_RO + ("delete",)),
    # ------------------------------------------------------------------ shopping
    Table("products", "shopping", "product", "products", "The store's catalogue.", (
        C("name", "text", "product name"),
        C("brand", "text", "brand"),
        C("category", "text", "category", kind="enum"),
        C("price", "real", "unit price in dollars", minimum=0),
        C("rating", "real", "average rating 0-5", minimum=0, maximum=5),
        C("stock", "int", "units in stock (derived by orders; not compared)", minimum=0, kind="bookkeeping"),
        C("description", "text", "description"),
    ), ops=_RO),
    Table("cart_items", "shopping", "cart_item", "cart_items", "Products in the shopping cart.", (
        C("product_id", "ref", "product", ref_table="products"),
        C("quantity", "int", "how many", minimum=1),
        C("added_at", "datetime", "when added (set automatically)", kind="bookkeeping"),
    ), ops=("list", "get", "count", "delete")),
    Table("orders", "shopping", "order", "orders", "Placed orders.", (
        C("items", "json", "list of {product_id, quantity, unit_price}"),
        C("total", "real", "total charged", minimum=0),
        C("address_id", "ref", "shipping address", ref_table="addresses"),
        C("card_id", "ref", "payment card", ref_table="payment_cards"),
        C("status", "text", "order status", enum=("placed", "shipped", "delivered", "cancelled", "returned")),
        C("gift_message", "text", "gift message"),
        C("placed_at", "datetime", "when placed (set automatically)", kind="bookkeeping"),
    ), ops=_RO),
    Table("addresses", "shopping", "address", "addresses", "Saved shipping addresses.", (
        C("label", "text", "short name, e.g. Home", required=True),
        C("recipient_name", "text", "who receives", required=True),
        C("street", "text", "street and number", required=True),
        C("city", "text", "city", required=True),
        C("state", "text", "state or region"),
        C("zip_code", "text", "postal code", kind="id"),
        C("country", "text", "country", default="USA"),
        C("is_default", "bool", "default address", default=False),
    )),
    Table("payment_cards", "shopping", "card", "cards", "Saved payment cards.", (
        C("cardholder_name", "text", "name on the card", required=True),
        C("card_type", "text", "network", enum=("visa", "mastercard", "amex", "discover"), required=True),
        C("last_four", "text", "last four digits", kind="id", required=True, lookup=True),
        C("expiry", "text", "expiry MM/YY", kind="enum", required=True),
        C("available_credit", "real", "credit left in dollars (derived by payments; not compared)", minimum=0, default=1000.0, kind="bookkeeping"),
        C("is_default", "bool", "default card", default=False),
    )),
    Table("wishlist_items", "shopping", "wishlist_item", "wishlist_items", "Products saved for later.", (
        C("product_id", "ref", "product", ref_table="products", required=True),
        C("note", "text", "note"),
        C("added_at", "datetime", "when added (set automatically)", kind="bookkeeping"),
    ), ops=("list", "get", "count", "create", "delete")),
    Table("product_reviews", "shopping", "review", "reviews", "The user's product reviews.", (
        C("product_id", "ref", "product", ref_table="products", required=True),
        C("rating", "int", "stars 1-5", minimum=1, maximum=5, required=True),
        C("title", "text", "headline"),
        C("body", "text", "review text"),
        _created(),
    )),
    # ------------------------------------------------------------------ music
    Table("artists", "music", "artist", "artists", "Artists in the music catalogue.", (
        C("name", "text", "artist name"),
        C("genre", "text", "main genre", kind="enum"),
        C("is_followed", "bool", "followed by the user", default=False, toggle=True),
    ), ops=_RO),
    Table("albums", "music", "album", "albums", "Albums in the music catalogue.", (
        C("title", "text", "album title"),
        C("artist", "text", "artist name"),
        C("release_year", "int", "year"),
        C("genre", "text", "genre", kind="enum"),
        C("is_saved", "bool", "saved to the library", default=False, toggle=True),
    ), ops=_RO),
    Table("songs", "music", "song", "songs", "Songs in the music catalogue.", (
        C("title", "text", "song title"),
        C("artist", "text", "artist name"),
        C("album_id", "ref", "album", ref_table="albums"),
        C("genre", "text", "genre", kind="enum"),
        C("duration_seconds", "int", "length in seconds", minimum=0),
        C("release_year", "int", "year"),
        C("play_count", "int", "times the user played it", minimum=0, default=0, kind="bookkeeping"),
        C("is_liked", "bool", "in liked songs", default=False, toggle=True),
    ), ops=_RO),
    Table("playlists", "music", "playlist", "playlists", "The user's playlists.", (
        C("name", "text", "playlist name", required=True),
        C("description", "text", "description", default=""),
        C("song_ids", "list", "song ids in order"),
        C("is_public", "bool", "visible to others", default=False, toggle=True),
        _created(),
    )),
    Table("play_queue", "music", "queue_item", "queue_items", "Songs queued to play next.", (
        C("song_id", "ref", "song", ref_table="songs"),
        C("position", "int", "place in the queue (0 = next)", minimum=0),
    ), ops=("list", "get", "count", "delete")),
    Table("player_state", "music", "player", "player", "The music player (one row).", (
        C("current_song_id", "ref", "song playing or paused", ref_table="songs"),
        C("is_playing", "bool", "playing", default=False),
        C("shuffle", "bool", "shuffle on", default=False),
        C("repeat", "text", "repeat mode", enum=("off", "one", "all"), default="off"),
        C("volume", "int", "player volume 0-100", minimum=0, maximum=100, default=60),
    ), ops=("get",), singleton=True),
    # ------------------------------------------------------------------ files
    Table("folders", "files", "folder", "folders", "Folders of the file system.", (
        C("name", "text", "folder name", required=True),
        C("parent_id", "ref", "parent folder (none = root)", ref_table="folders"),
        _created(),
    )),
    Table("files", "files", "file", "files", "Files (text documents or saved images).", (
        C("name", "text", "file name with extension", required=True),
        C("folder_id", "ref", "folder (none = root)", ref_table="folders"),
        C("content", "text", "text content", default=""),
        C("image_id", "text", "image id for image files", kind="id"),
        C("mime_type", "text", "type", enum=("text/plain", "text/csv", "text/markdown", "image/png", "application/pdf"), default="text/plain"),
        C("is_starred", "bool", "starred", default=False, toggle=True),
        _created(), _updated(),
    )),
    # ------------------------------------------------------------------ profile
    Table("user_profile", "profile", "profile", "profile", "The device owner's profile (one row).", (
        C("first_name", "text", "first name"),
        C("last_name", "text", "last name"),
        C("email", "text", "email address", kind="id"),
        C("phone_number", "text", "phone number", kind="id"),
        C("date_of_birth", "date", "birthday (YYYY-MM-DD)"),
        C("home_address", "text", "home address"),
        C("work_address", "text", "work address"),
    ), ops=("get", "update"), singleton=True),
    Table("credentials", "profile", "credential", "credentials", "Stored app account credentials.", (
        C("app", "text", "app name", kind="enum"),
        C("username", "text", "account name", kind="id"),
        C("password", "text", "password", kind="id"),
    ), ops=("list", "get")),
    # ------------------------------------------------------------------ photos
    Table("photos", "photos", "photo", "photos", "The photo gallery: images the user keeps.", (
        C("image_id", "text", "image id in the episode's image store", kind="id", required=True, lookup=True),
        C("album", "text", "album name", default="Camera Roll"),
        C("caption", "text", "caption"),
        C("is_favorite", "bool", "favourite", default=False, toggle=True),
        _created(),
    )),
)

TABLES_BY_NAME: dict[str, Table] = {t.name: t for t in TABLES}
APPS: tuple[str, ...] = tuple(dict.fromkeys(t.app for t in TABLES))


def table(name: str) -> Table:
    """The declaration of table ``name``."""
    try:
        return TABLES_BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown table {name!r}; tables: {', '.join(TABLES_BY_NAME)}") from None


def column_kinds() -> dict[str, dict[str, str]]:
    """``{table: {column: kind}}`` for the entity-diff scorer (``id`` included)."""
    return {t.name: {"id": "id", **{c.name: c.score_kind for c in t.columns}} for t in TABLES}


def ddl() -> str:
    """The SQL that creates every table."""
    statements = []
    for t in TABLES:
        cols = ["id INTEGER PRIMARY KEY AUTOINCREMENT" if not t.singleton else "id INTEGER PRIMARY KEY CHECK (id = 1)"]
        cols += [f'"{c.name}" {c.sql_type}' for c in t.columns]
        statements.append(f'CREATE TABLE "{t.name}" ({", ".join(cols)});')
    return "\n".join(statements)
