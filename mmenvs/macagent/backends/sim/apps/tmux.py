"""tmux in the simulated Mac: the real tmux (Debian's ``tmux`` package) running inside the episode's
confined shell. Nothing about tmux itself is simulated; this module only fits it into the sim:

* its sockets live in ``$TMUX_TMPDIR=~/Library`` (``~/Library/tmux-<uid>/default``), a folder both of
  the episode's shells see (the agent's shell and the one behind AppleScript's ``do shell script``),
  so a session started in one is reachable from the other, as on a Mac where both share ``/tmp``;
* the tmux server and everything running in its panes may outlive the command that started them
  (the sandbox stops any other process a command leaves behind, including one that merely calls
  itself "tmux: server": the server is recognised by its binary and its listening socket); they end with the episode, when
  the shell is restarted at reset (before the home is emptied for the next episode, so nothing they
  write is left in it), and stay inside the shell's process and memory limits;
* ``tmux attach`` (which needs a terminal the simulated Terminal cannot give it) shows what the
  session's active pane shows right now and detaches, like attaching, looking and pressing
  ``ctrl-b d``. Every other tmux command is the real one.
"""

from __future__ import annotations

from typing import Any

from .base import App

# The attach stand-in. ``tmux attach`` has no terminal to draw on in the sim (it would fail with
# "open terminal failed: not a terminal"), so the function prints the active pane's screen (trailing
# blank rows dropped) and tmux's detach message; errors are tmux's own ("no sessions", "can't find
# session: x"). Global options before the command (-L, -S, …) go to the real tmux untouched.
_SHELL_INIT = r"""export TMUX_TMPDIR="$HOME/Library"
__tmux_pane_pids() { command tmux list-panes -a -F '#{pane_id}:#{pane_pid}' 2>/dev/null; }
__tmux_settle() {
  # $@: pane pids. Returns once no process of those panes is running (state R) or in disk wait (D)
  # on two samples in a row: the panes' programs are waiting for input (or sleeping, or gone).
  # Bounded: after __TMUX_SETTLE_US microseconds it returns anyway (a pane that computes forever).
  local __end=$(( ${EPOCHREALTIME/./} + ${__TMUX_SETTLE_US:-5000000} )) __idle=0 __f __l __r __p __a __d __busy
  local -A __par __st
  while (( ${EPOCHREALTIME/./} < __end )); do
    __par=() __st=() __busy=0
    for __f in /proc/[0-9]*/stat; do
      IFS= read -r __l 2>/dev/null < "$__f" || continue
      __r=${__l##*) }; __p=${__f#/proc/}; __p=${__p%/stat}
      __st[$__p]=${__r%% *}; __r=${__r#* }; __par[$__p]=${__r%% *}
    done
    for __p in "${!__st[@]}"; do
      [[ ${__st[$__p]} == [RD] ]] || continue
      __a=$__p
      for (( __d = 0; __d < 64 && __a > 1; __d++ )); do
        case " $* " in *" $__a "*) __busy=1; break ;; esac
        __a=${__par[$__a]:-0}
      done
      (( __busy )) && break
    done
    if (( __busy )); then __idle=0; else (( ++__idle >= 2 )) && return 0; fi
    sleep 0.02
  done
  return 0
}
tmux() {
  case "${1-}" in
    attach|attach-session|a|at|att|atta|attac) ;;
    *)
      # a command that starts panes returns once their programs are ready for input, as a person at
      # a Mac would wait to see the prompt before typing (send-keys right after new-session otherwise
      # races the pane's program starting)
      local __w __mk=0 __before __after __rc __pids=()
      for __w in "$@"; do
        case "$__w" in new-session|new|new-window|neww|split-window|splitw|respawn-pane|respawnp|respawn-window|respawnw) __mk=1 ;; esac
      done
      (( __mk )) || { command tmux "$@"; return; }
      __before=$(__tmux_pane_pids)
      command tmux "$@"; __rc=$?
      __after=$(__tmux_pane_pids)
      for __w in $__after; do
        case $'\n'"$__before"$'\n' in *$'\n'"$__w"$'\n'*) ;; *) __pids+=("${__w#*:}") ;; esac
      done
      (( ${#__pids[@]} )) && __tmux_settle "${__pids[@]}"
      return $__rc ;;
  esac
  shift
  local __o __t="" OPTIND=1 OPTARG
  while getopts ":c:dEf:rt:x" __o; do
    case "$__o" in
      t) __t=$OPTARG ;;
      :) echo "command attach-session: -$OPTARG expects an argument" >&2; return 1 ;;
      \?) echo "command attach-session: unknown flag -$OPTARG" >&2; return 1 ;;
    esac
  done
  if ! command tmux list-sessions >/dev/null 2>&1; then echo "no sessions" >&2; return 1; fi
  if [ -n "$__t" ]; then command tmux has-session -t "$__t" || return 1; fi
  local __s
  __s=$(command tmux display-message -p ${__t:+-t "$__t"} '#{session_name}') || return 1
  command tmux capture-pane -p -t "=$__s:" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
  echo "[detached (from session $__s)]"
}
"""


class TmuxTool(App):
    """tmux: no window, no state of its own (the tmux server holds it); see the module docstring."""

    name = "tmux"
    bundle_id = "org.tmux.tmux"
    in_dock = False
    text_editing = False
    shell_init = _SHELL_INIT
    # the server process names itself "tmux: server"; the panes' programs are its children. The name is
    # only a first filter (any process can write it to /proc/self/comm): the sandbox keeps a process
    # of that name only if it runs the system's tmux binary and listens on a socket (sandbox.shell.KeptDaemon)
    daemons = ("tmux: server",)

    def state(self) -> dict[str, Any]:
        """tmux keeps its sessions in its server; read them with ``tmux ls`` in the shell."""
        return {"running": False}
