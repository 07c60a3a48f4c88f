# Helpers for shell tests that render charts in headless Chromium and check
# the screenshots' pixels, sourced after lib.sh with CHROMIUM, PYTHON and
# OUT set.  Not a test itself.
#
#   shot FILE PNG W H            screenshot FILE (svg or html) at W x H into PNG
#   svg_size SVG                 "W H" of an SVG document
#   pixel_check NAME WHAT CHECKS...
#                                check $OUT/NAME.png with pixels.py (CHECKS:
#                                #rrggbb:MIN[:MAX] ... or cells SVG MIN)

shot() {
  local file=$1 png=$2 w=$3 h=$4 profile
  profile=$(mktemp -d "$TMPDIR_TEST/chromium-profile.XXXXXX")
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --force-device-scale-factor=1 --hide-scrollbars \
    --screenshot="$png" --window-size="$w,$h" "file://$file" > "$png.chromium.log" 2>&1
  rm -rf "$profile"
  [ -s "$png" ]
}

svg_size() { grep -o 'width="[0-9]*" height="[0-9]*"' "$1" | head -1 | sed 's/width="\([0-9]*\)" height="\([0-9]*\)"/\1 \2/'; }

pixel_check() {
  local name=$1 what=$2
  shift 2
  "$PYTHON" "$(dirname "${BASH_SOURCE[0]}")/pixels.py" "$OUT/$name.png" "$@" > "$OUT/$name.pixels.txt" 2>&1
  local rc=$?
  ok $rc "$name.png: $what"
  [ $rc -eq 0 ] || sed 's/^/# /' "$OUT/$name.pixels.txt"
}
