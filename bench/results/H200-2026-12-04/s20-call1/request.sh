# timeout: 300
# Session 20, call 1 (main d31d872): the gpu label (56392d8's fill-pass assertion has not run on a GPU).
set -u
cd build && timeout 280 ctest -L gpu --output-on-failure > $R/label.txt 2>&1; echo "label exit $?" >> $R/label.txt
tail -5 $R/label.txt
