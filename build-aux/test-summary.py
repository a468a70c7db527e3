#!/usr/bin/env python3
# Adds up meson's testlog.json files into one closing line,
# "N passed, N failed, N skipped", that any CI reader understands.
#
# usage: build-aux/test-summary.py BUILD_DIR_OR_TESTLOG [...]
import json
import os
import sys

passed = failed = skipped = 0
for arg in sys.argv[1:]:
    path = arg
    if os.path.isdir(arg):
        path = os.path.join(arg, 'meson-logs', 'testlog.json')
    if not os.path.exists(path):
        print('test-summary: no test log at %s' % path, file=sys.stderr)
        failed += 1
        continue
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            result = json.loads(line).get('result', '')
            if result in ('OK', 'EXPECTEDFAIL'):
                passed += 1
            elif result == 'SKIP':
                skipped += 1
            else:
                failed += 1
print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
sys.exit(1 if failed else 0)
