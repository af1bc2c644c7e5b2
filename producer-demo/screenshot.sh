#!/usr/bin/env bash
# Takes a PNG of the demo's chart with headless Chromium, for the README:
#   producer-demo/screenshot.sh [CHART.html [OUT.png]]
# CHART defaults to the demo's output (target/demo/shaper-demo.html: run the demo first, see the README), OUT to
# docs/images/demo-chart.png. Needs Chromium (Debian: apt-get install -y chromium). Paths are from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."

chart=${1:-target/demo/shaper-demo.html}
out=${2:-docs/images/demo-chart.png}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "screenshot.sh: no Chromium on the PATH (Debian: apt-get install -y chromium)" >&2
  exit 1
fi
if [ ! -f "$chart" ]; then
  echo "screenshot.sh: no chart at $chart; run the demo first (see the README)" >&2
  exit 1
fi

# The SVG alone, on a page without margins, in a window of the SVG's own size (its viewBox).
size=$(sed -n 's/.*<svg[^>]* viewBox="0 0 \([0-9]*\) \([0-9]*\)".*/\1,\2/p' "$chart" | head -n 1)
if [ -z "$size" ]; then
  echo "screenshot.sh: $chart has no <svg viewBox=...>" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
  echo '<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}svg{display:block}</style></head><body>'
  sed -n '/<svg/,/<\/svg>/p' "$chart"
  echo '</body></html>'
} > "$work/chart.html"

"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking --hide-scrollbars \
  --force-device-scale-factor=1 --user-data-dir="$work/profile" --window-size="$size" \
  --screenshot="$work/chart.png" "file://$work/chart.html" > "$work/chromium.log" 2>&1 || {
  cat "$work/chromium.log" >&2
  exit 1
}
mkdir -p "$(dirname "$out")"
cp "$work/chart.png" "$out"
echo "screenshot: $out ($(wc -c < "$out") bytes, ${size/,/x})"
