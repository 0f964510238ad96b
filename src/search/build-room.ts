/** Room on disk for one sidecar build (store mode with a bounded cache): the build writes at most `bytes` and asks for more first. */
export interface BuildRoom {
  readonly bytes: number;
  /** Raises the room to `bytes`; false when there is none (the build then stops where its file is full). */
  grow(bytes: number): boolean;
  release(): void;
}

/** Where sidecar builds get their room: the bounded store cache, which counts the sidecars beside the tenant files. */
export interface SidecarSpace {
  /** Room for a build in the tenant's folder, at least `bytes`; null when the cache has none now (the build fails). */
  claim(compositeId: string, bytes: number): BuildRoom | null;
  /** The tenant's folder changed (a sidecar renamed into place or deleted): count it again. */
  changed(compositeId: string): void;
}
