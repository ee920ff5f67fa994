/**
 * Counts the characters the parser examines, pass by pass, so tests can prove its work grows
 * linearly with its input without ever measuring time.
 */
export class WorkCounter {
  characters = 0;

  add(count: number): void {
    this.characters += count;
  }
}
