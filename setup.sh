#!/usr/bin/env bash
# Installs everything mmenvs needs on a fresh Debian machine (system packages, then the package
# itself with its test extras; Ubuntu names the browser packages differently). Safe to run twice.
#   ./setup.sh --peers   also installs the peers `mmenvs bench` runs beside our envs: the `peers` extra
#                        (MiniWoB++, driving the Chromium installed for everyone).
set -euo pipefail
cd "$(dirname "$0")"

PEERS=0
for argument in "$@"; do
  case "$argument" in
    --peers) PEERS=1 ;;
    *) echo "setup.sh: unknown option '$argument' (expected: --peers)" >&2; exit 2 ;;
  esac
done

# bubblewrap: the OS sandbox for agent code. fonts-dejavu-core: fonts the renderers draw with.
# tmux, ffmpeg: programs the MacAgent sim's shell runs for real (tmux sessions, video frames).
# sqlite3: the command line shell for SQLite (the sim's Safari history, ~/Library/Safari/History.db).
# jq, zsh: what the public MacAgentBench tasks' reference commands run in the sim's shell (jq filters over
# the skill CLIs' JSON; python scripts that spawn /bin/zsh -lc), as a Mac has them.
# chromium, chromium-driver: the headless browser tests/test_view.py opens `mmenvs view` reports in
# (through Selenium, in the dev extra); the MiniWoB++ peer of `mmenvs bench --peers` uses it too.
# docker.io, debootstrap: the MacAgent VM backend's tests start a private dockerd and run the Linux test
# guest that `mmenvs vm build-test-guest` builds from Debian packages (a debootstrap rootfs).
APT_PACKAGES="bubblewrap fonts-dejavu-core tmux ffmpeg sqlite3 jq zsh chromium chromium-driver docker.io debootstrap"
EXTRAS="dev"
if [ "$PEERS" -eq 1 ]; then
  EXTRAS="dev,peers"
fi
missing=""
for package in $APT_PACKAGES; do
  dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  # without recommends ffmpeg is ~55 MB to fetch instead of pulling in GPU drivers and speech data
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

python3 -m pip install --quiet --upgrade pip
# torch first, the CPU build: the rl extra (stable-baselines3) would otherwise pull the 5.9 GB CUDA wheel
python3 -m pip install --quiet torch==2.13.0
python3 -m pip install --quiet -e ".[$EXTRAS]"
echo "mmenvs installed: $(python3 -c 'import mmenvs; print(", ".join(mmenvs.ENV_IDS))')"
