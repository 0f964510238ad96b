import { CellRow } from './cell.entity.js';
import { NoteRow } from './note.entity.js';
import { NotebookRow } from './notebook.entity.js';
import { SavedViewRow } from './saved-view.entity.js';

/** Every TypeORM entity of the app database (tables made by migrations/, never by `synchronize`). */
export const APP_ENTITIES = [SavedViewRow, NotebookRow, NoteRow, CellRow];
