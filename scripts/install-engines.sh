#!/usr/bin/env bash
# Installs the Debian packages of docmill's external engines, if missing.
# Idempotent: does nothing when everything is there. Used by `make run`
# and `make test`.
set -euo pipefail
packages=(
	qpdf poppler-utils ghostscript libnss3-tools
	tesseract-ocr tesseract-ocr-eng tesseract-ocr-rus ocrmypdf
	libvips-tools
	libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui python3-uno bubblewrap
	fonts-liberation2 fonts-crosextra-carlito fonts-crosextra-caladea fonts-dejavu
	curl # with python3's requests, the API reference's examples, run by TestReference (node comes with Redocly)
)
# requests may come from elsewhere than Debian (pip, a pyenv): ask only
# when python3 cannot import it.
python3 -c 'import requests' 2>/dev/null || packages+=(python3-requests)
# HEIF/HEIC and AVIF: libvips reads them through libheif. Debian 12's
# libheif1 links its codecs (libde265, x265, dav1d, aom); from Debian 13
# they are plugins, only recommended, so --no-install-recommends below
# would leave them out: ask for those this release has. The tests write
# their HEIC samples with vips (x265, the HEIC encoder) and AVIF ones
# (aomenc).
for p in libheif-plugin-libde265 libheif-plugin-x265 libheif-plugin-dav1d libheif-plugin-aomenc; do
	apt-cache show "$p" >/dev/null 2>&1 && packages+=("$p")
done
# Chromium: its headless shell where the release has it (html-to-pdf and
# the other browser tools print with it; it starts faster and in less
# memory than the desktop browser), the browser itself elsewhere.
if apt-cache show chromium-headless-shell >/dev/null 2>&1; then
	packages+=(chromium-headless-shell)
else
	packages+=(chromium)
fi
missing=()
for p in "${packages[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing engines: ${missing[*]}"
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
