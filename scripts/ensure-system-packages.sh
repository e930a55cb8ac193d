#!/usr/bin/env bash
# Install Debian packages the project needs when they are missing: Chromium (browser tests, JS pages),
# wordnet-base (WordNet synonyms, read offline by NLTK) and gettext (msgfmt compiles the German and
# French catalogues). Usage: ensure-system-packages.sh [--optional]
set -euo pipefail
optional=${1:-}
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -f /usr/share/wordnet/data.noun ] || [ -f /usr/share/wordnet/dict/data.noun ] || missing+=(wordnet-base)
command -v msgfmt >/dev/null 2>&1 || missing+=(gettext)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing ${missing[*]} with apt-get ..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  sudo apt-get update -qq
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
elif [ "$optional" = "--optional" ]; then
  echo "Note: ${missing[*]} not installed (install them for synonyms, JavaScript sites and translations)." >&2
else
  echo "Missing Debian packages: ${missing[*]} (apt-get install ${missing[*]})." >&2
  exit 1
fi
