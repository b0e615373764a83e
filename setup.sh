#!/usr/bin/env bash
# Installs everything mmenvs needs on a fresh Debian/Ubuntu machine (system packages, then the
# package itself with its test extras). Safe to run twice.
set -euo pipefail
cd "$(dirname "$0")"

# bubblewrap: the OS sandbox for agent code. fonts-dejavu-core: fonts the renderers draw with.
APT_PACKAGES="bubblewrap fonts-dejavu-core"
missing=""
for package in $APT_PACKAGES; do
  dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi

python3 -m pip install --quiet --upgrade pip
python3 -m pip install --quiet -e ".[dev]"
echo "mmenvs installed: $(python3 -c 'import mmenvs; print(", ".join(mmenvs.ENV_IDS))')"
