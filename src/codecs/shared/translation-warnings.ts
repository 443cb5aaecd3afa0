/** Warnings of one translation, each kept once, in the order first raised. */
export class Warnings {
  readonly list: string[] = [];

  add(message: string): void {
    if (!this.list.includes(message)) this.list.push(message);
  }
}
