/**
 * An item a dialog asks the reader to confirm an action on (delete, revoke, remove), and whether
 * that dialog is open: `ask` is what the item's button calls, `bind:open` binds the dialog, and
 * `confirmed` runs the action on the item asked about once the reader says yes.
 */
export class Confirmation<Item> {
  item = $state<Item | undefined>();
  open = $state(false);

  readonly ask = (item: Item): void => {
    this.item = item;
    this.open = true;
  };

  /** Runs the action on the item asked about; nothing when none was. */
  async confirmed(action: (item: Item) => Promise<void>): Promise<void> {
    const item = this.item;
    if (item !== undefined) await action(item);
  }
}
