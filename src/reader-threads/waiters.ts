/** Promises resolved together when what they wait for happens (wake). */
export class Waiters {
  private waiting: (() => void)[] = [];

  wait(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  wake(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}
