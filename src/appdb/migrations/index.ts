import { CreateAppMeta1763700000000 } from './1763700000000-create-app-meta.js';

/** Every migration, oldest first; they run at start (design.md section 6: no `synchronize`). */
export const MIGRATIONS = [CreateAppMeta1763700000000];
