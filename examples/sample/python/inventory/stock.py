"""Stock keeping for a small shop: items, quantities and reorder rules."""

from dataclasses import dataclass


@dataclass
class Item:
    """An item on the shelf."""

    sku: str
    quantity: int
    reorder_level: int = 5

    def needs_reorder(self):
        """Tell whether the quantity fell to the reorder level.

        Returns True when the shelf should be restocked.
        """
        return self.quantity <= self.reorder_level

    def take(self, n):
        """Remove n units from the shelf, refusing to go below zero."""
        if n > self.quantity:
            raise ValueError(f"only {self.quantity} of {self.sku} left")
        self.quantity -= n
        return self.quantity


def total_units(items):
    """Count the units of every item together."""
    return sum(item.quantity for item in items)


def restock_list(items, batch=10):
    """List the SKUs to reorder, with the amount to order for each."""
    def amount(item):
        """Order enough to reach the reorder level plus one batch."""
        return item.reorder_level - item.quantity + batch
    return [(item.sku, amount(item)) for item in items if item.needs_reorder()]
