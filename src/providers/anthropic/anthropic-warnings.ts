/** Warnings about what the Messages API cannot take, collected once each in the order they were raised. */
export class Warnings {
  readonly list: string[] = [];

  add(message: string): void {
    if (!this.list.includes(message)) this.list.push(message);
  }
}
