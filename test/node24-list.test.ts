import { readFileSync, existsSync } from 'node:fs';
import { test } from 'tap';

// scripts/test-node24.sh refuses to run when its PLAIN_JS list names a test that was moved or deleted;
// that run happens only in CI (it needs root), so the list is checked here, in every run.
test('every test named in PLAIN_JS of scripts/test-node24.sh exists', (t) => {
  const script = readFileSync('scripts/test-node24.sh', 'utf8');
  const list = /^PLAIN_JS=\(([\s\S]*?)^\)/m.exec(script);
  t.ok(list, 'the script has a PLAIN_JS list');
  const files = (list?.[1] ?? '').split(/\s+/).filter((word) => word.endsWith('.test.ts'));
  t.ok(files.length > 20, `PLAIN_JS names ${files.length} tests`);
  t.same(files.filter((file) => !existsSync(file)), [], 'no name without its file');
  t.end();
});
