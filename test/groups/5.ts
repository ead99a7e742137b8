// One of the processes npm test runs: see test/helpers/groups.ts.
import { runGroup } from '../helpers/groups.ts';

await runGroup(import.meta.filename);
