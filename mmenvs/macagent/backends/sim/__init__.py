"""The embedded macOS-like desktop behind ``MacAgent-v0``'s ``backend="sim"``.

``SimBackend(screen_size=(1280, 800))`` implements :class:`~mmenvs.macagent.backends.base.MacBackend`:
a Pillow-rendered desktop (menu bar with the task's clock, dock, wallpaper, desktop icons, windows
with traffic lights, sheets and alerts, menus), a widget toolkit with hit-testing, keyboard focus,
selection and a clipboard, apps with real state, a confined shell over the episode's home folder
and AppleScript for the apps. Nothing reads the host clock: the clock is the ``now`` given to
``reset`` (``advance_time(seconds)`` moves it).

Spotlight (cmd-space) finds apps and files of the home folder; Return opens the selected hit.

Optional features of the interface that the sim implements
----------------------------------------------------------
* ``backend.set_web_pages({url: html})`` — the offline web for Safari and ``curl``.
* ``backend.advance_time(seconds)`` — moves the sim clock (Clock timers count down; ``simulated_clock``).
* ``dedups_frames`` and ``damage_since(frame)`` — unchanged screens and changed boxes, for cheap observations.

Beyond the interface
--------------------
* ``backend.app(name)`` — the app object; ``backend.app_state(name)`` — ``app.state()``, JSON-able.
* ``backend.posix_home`` — the home as the shell and scripts see it (``/Users/user``);
  ``backend.posix_path(host_path)`` / ``backend.host_path(text)`` translate.
* ``backend.desktop.clipboard.text`` — the clipboard; ``backend.prefs`` — ``defaults`` domains.

Apps and their Python API (getters use these; each also has ``state() -> dict``)
--------------------------------------------------------------------------------
* **Finder** — over the real home folder (Desktop, Documents, Downloads, ``~/.Trash``):
  ``new_folder(folder, name)``, ``rename(path, new_name)``, ``move_items(paths, folder)``,
  ``copy_items(paths, folder)``, ``move_to_trash(paths)``, ``put_back(names)``, ``empty_trash()``,
  ``open_folder(path)``. AppleScript: items/files/folders of ``desktop``/``home``/folders, name,
  size, kind, modification date, container, URL; make/delete/move/duplicate/open/reveal.
* **Terminal** — ``run_command(window, command)``, ``contents(window)``, ``history``;
  AppleScript ``do script``, ``contents of window 1``.
* **Notes** — ``folders()``, ``notes(folder=None)``, ``add_folder(name)``, ``add_note(name, body, folder)``.
  AppleScript: accounts, folders, notes (name, body as HTML, plaintext, creation/modification date).
* **Reminders** — ``lists()``, ``reminders(list_name=None)``, ``add_list(name)``,
  ``add_reminder(name, list_name, due, priority, body, completed, flagged)``. AppleScript: lists,
  reminders (name, body, due date, completed, completion date, priority 0/1/5/9, flagged).
* **Calendar** — ``calendars()``, ``events(calendar=None)``, ``add_event(summary, start, end, calendar,
  location, description, allday, recurrence)``; ``view`` is Day/Week/Month. AppleScript: calendars,
  events (summary, start date, end date, allday event, location, description, recurrence, uid).
* **System Settings** — attributes ``appearance`` (Light/Dark/Auto), ``dark_mode``, ``accent_color``,
  ``tint_windows``, ``wallpaper``, ``wifi``, ``bluetooth``, ``volume``, ``alert_volume``, ``muted``,
  ``do_not_disturb``, ``dock_autohide``, ``computer_name``; ``set_dark_mode``, ``set_accent``,
  ``set_wallpaper``. Also ``defaults`` (NSGlobalDomain AppleInterfaceStyle / AppleAccentColor,
  com.apple.dock autohide), ``networksetup`` (Wi-Fi) and System Events' appearance preferences.
* **Clock** — ``alarms()``, ``timers()``, ``add_alarm(hour, minute, label, repeat, sound)``,
  ``add_timer(seconds, label)``; ``tick()`` after ``advance_time``. (Sim-only AppleScript: alarms,
  timers — the real Clock has no dictionary.)
* **Safari** — ``pages`` (URL → HTML), ``navigate``/``open_url``, ``bookmarks`` (tree; ``bookmark_tree()``,
  ``add_bookmark(url, title, folder)``, ``add_folder(title)``), ``history``; bookmarks are also written to
  ``~/Library/Safari/Bookmarks.plist``. AppleScript: windows, documents, tabs (name, URL, text,
  source), ``open location``.
* **TextEdit** — ``documents`` (name, text, path, modified), ``new_document(text)``, ``open_file(path)``,
  ``write(doc, path)``. AppleScript: documents (name, text, path, modified), make, open, save … in, close.
* **Mail** — ``add_message(sender, subject, content, mailbox, to, date, read, flagged)``,
  ``messages(mailbox)``, ``compose(to, subject, content)``; mailboxes Inbox, Drafts, Sent, Junk, Trash,
  Archive. AppleScript: ``inbox``/``sent mailbox``…, messages, outgoing messages, recipients, ``send``.

The shell (``run_shell``) is a :class:`~mmenvs.sandbox.ShellSandbox` with the home mounted at
``/Users/user`` and these macOS commands answered by the desktop: ``osascript``, ``open``,
``defaults``, ``pbcopy``, ``pbpaste``, ``networksetup``, ``sw_vers``, ``curl`` (offline web) and
``screencapture``. In the session they are shell functions with a small Perl socket client (a few ms a
call); programs that exec them (``xargs``, ``bash -c``) reach the sandbox's Python shim on PATH instead.
The session's ``date`` shows the desktop's clock (``date -d …`` is the real command).
"""

from .backend import SimBackend, SimInternalError

__all__ = ["SimBackend", "SimInternalError"]
