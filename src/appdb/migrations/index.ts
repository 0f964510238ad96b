import { CreateAppMeta1763700000000 } from './1763700000000-create-app-meta.js';
import { CreateCollaboration1763800000000 } from './1763800000000-create-collaboration.js';
import { AddRevisions1764300000000 } from './1764300000000-add-revisions.js';
import { AddCommitDeadline1764900000000 } from './1764900000000-add-commit-deadline.js';
import { AddChangeEventSequence1765100000000 } from './1765100000000-add-change-event-sequence.js';

/** Every migration, oldest first; they run at start (schema changes go through migrations, never `synchronize`). */
export const MIGRATIONS = [CreateAppMeta1763700000000, CreateCollaboration1763800000000, AddRevisions1764300000000, AddCommitDeadline1764900000000, AddChangeEventSequence1765100000000];
