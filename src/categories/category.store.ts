// The categories' storage (storage/sql/sql.categories.ts).
import type { Category } from './category.schemas.ts';

/** Categories. A deleted category keeps its row (withdrawn pets name it) and frees its name. */
export interface CategoryRepository {
  list(): Promise<Category[]>;
  get(id: number): Promise<Category | undefined>;
}

export interface CategoryTx {
  /**
   * The live category, locked: for 'rename' against other writers of the row (FOR NO KEY
   * UPDATE); for 'remove' also against transactions putting a pet into it (FOR UPDATE, which
   * waits for their FOR KEY SHARE).
   */
  lock(id: number, purpose: 'rename' | 'remove'): Promise<Category | undefined>;
  /** Whether the category is live; it then stays live until the transaction ends (FOR KEY SHARE). */
  keepLive(id: number): Promise<boolean>;
  /** undefined (nothing written) when a live category already has the name, in any case. */
  insert(name: string): Promise<Category | undefined>;
  /** undefined (nothing written) when another live category already has the name, in any case. */
  rename(id: number, name: string): Promise<Category | undefined>;
  remove(id: number, at: Date): Promise<void>;
}
