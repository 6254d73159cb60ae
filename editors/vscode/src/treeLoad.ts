// Loads the session tree lazily from session/tree's flat, paged answers: one listing per key,
// fetched the first time the view asks for it and cached until the next refresh. A key is ''
// (the roots), 'root:<id>' (the children of a branch point, {root}) or 'chain:<id>' (the entries
// of the linear run starting at id, {chain}). A listing holds the pages loaded so far; more()
// appends the next page ({after: next}). Nothing here ever walks the whole tree.
// Pure (no vscode import), unit-tested.
import type { FlatTreeNode, FlatTreePage } from './protocol';

/** The nodes asked for per page (session/tree's `limit`). */
export const PAGE = 200;

export type TreeRequest = (method: string, params: unknown) => Promise<unknown>;

/** The pages of one key loaded so far. */
export interface Listing {
  nodes: FlatTreeNode[];
  /** The cursor of the next page; null after the last. */
  next: string | null;
}

export class LazyTree {
  /** The current leaf, from the latest answer. */
  leafId = '';
  private readonly lists = new Map<string, Promise<Listing>>();
  private readonly settled = new Map<string, Listing>();

  constructor(
    private readonly request: TreeRequest,
    readonly page = PAGE,
  ) {}

  private params(key: string, after: string | null): Record<string, unknown> {
    const p: Record<string, unknown> = { limit: this.page };
    if (key.startsWith('root:')) p.root = key.slice(5);
    else if (key.startsWith('chain:')) p.chain = key.slice(6);
    if (after) p.after = after;
    return p;
  }

  private async fetch(key: string, after: string | null): Promise<FlatTreePage> {
    const p = ((await this.request('session/tree', this.params(key, after))) as FlatTreePage | undefined) ?? { nodes: [], leafId: '', next: null };
    if (p.leafId) this.leafId = p.leafId;
    return p;
  }

  /** The listing of key: its first page on the first call (one request), the cached pages after. */
  list(key: string): Promise<Listing> {
    let l = this.lists.get(key);
    if (!l) {
      l = this.fetch(key, null).then((p) => {
        const got: Listing = { nodes: p.nodes ?? [], next: p.next ?? null };
        this.settled.set(key, got);
        return got;
      });
      // A failed fetch is not cached: the next look asks again.
      l.catch(() => this.lists.delete(key));
      this.lists.set(key, l);
    }
    return l;
  }

  /** The listing of key if it was loaded. */
  loaded(key: string): Listing | undefined {
    return this.settled.get(key);
  }

  /** Appends key's next page (one request); nothing when it is not loaded or is complete. */
  async more(key: string): Promise<Listing | undefined> {
    const cur = await this.lists.get(key);
    if (!cur || !cur.next) return cur;
    const next = this.fetch(key, cur.next).then((p) => {
      const got: Listing = { nodes: [...cur.nodes, ...(p.nodes ?? [])], next: p.next ?? null };
      this.settled.set(key, got);
      return got;
    });
    this.lists.set(key, next);
    next.catch(() => this.lists.set(key, Promise.resolve(cur)));
    return next;
  }
}
