#!/usr/bin/env bash
# The report in a real browser: `hetsched compare` writes report.html for three policies on a
# small heterogeneous workload; headless Chromium (Debian's `chromium`, installed by
# scripts/setup.sh) then
#   1. renders it as written and takes a screenshot (WORK/report.png): any console message fails
#      the test (the report has no scripts, so a message means a resource it could not load or
#      markup the browser rejected);
#   2. renders a copy with a checker script appended that counts, per figure, the data marks
#      (class "mark") the browser actually drew with a non-empty box: a figure with none fails.
# Usage: report_browser_test.sh HETSCHED_BINARY WORK_DIR
set -euo pipefail
cli=$1
work=$2
rm -rf "$work"
mkdir -p "$work/home"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "FAIL: chromium is not installed (bash scripts/setup.sh installs it)"
  exit 1
fi

"$cli" compare --synthetic 60 --arrival-rate 30 --gpus v100=16,p100=16,k80=16 --gpus-per-server 4 --seed 3 \
  --policies fifo,tiresias-las,gavel-las -j 1 -q -o "$work/out" > "$work/compare.log"
report="$work/out/report.html"
[ -s "$report" ] || { echo "FAIL: no report written"; exit 1; }

run_browser() {  # url, extra args...; stdout = DOM (with --dump-dom), stderr kept in $work/browser.err
  local url=$1
  shift
  HOME="$work/home" timeout 300 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/home/profile" --enable-logging=stderr --v=0 "$@" "$url" 2>> "$work/browser.err"
}

: > "$work/browser.err"
run_browser "file://$report" --window-size=1280,3200 --screenshot="$work/report.png" > /dev/null
[ -s "$work/report.png" ] || { echo "FAIL: no screenshot"; cat "$work/browser.err"; exit 1; }

checked="$work/checked.html"
sed 's#</body>#<script>(function(){var out=[];document.querySelectorAll("figure").forEach(function(f){var n=0;f.querySelectorAll(".mark").forEach(function(m){var b=m.getBBox();if(b.width>0||b.height>0)n++;});out.push(f.id+":"+n);});document.body.setAttribute("data-marks",out.join(" "));})();</script></body>#' \
  "$report" > "$checked"
run_browser "file://$checked" --dump-dom > "$work/dom.html"

status=0
if grep -q "CONSOLE" "$work/browser.err"; then
  echo "FAIL: console messages while rendering the report:"
  grep "CONSOLE" "$work/browser.err"
  status=1
fi
marks=$(grep -o 'data-marks="[^"]*"' "$work/dom.html" | head -1 | sed 's/data-marks="//; s/"$//')
echo "marks drawn per figure: ${marks:-none}"
for fig in utilisation queue jct-cdf cost-energy; do
  n=$(tr ' ' '\n' <<< "$marks" | sed -n "s/^$fig://p")
  if [ -z "$n" ] || [ "$n" -eq 0 ]; then
    echo "FAIL: figure '$fig' has no drawn marks"
    status=1
  fi
done
[ $status -eq 0 ] && echo "ok: report renders in $("$browser" --version 2>/dev/null | head -1), screenshot $work/report.png"
exit $status
