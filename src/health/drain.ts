/** Whether this server has begun to stop: from then on readiness answers 503, while requests are still served. */
export class Drain {
  #draining = false;

  /** True once `begin` was called. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Marks the server as stopping (SIGTERM); it cannot be undone. */
  begin(): void {
    this.#draining = true;
  }
}
