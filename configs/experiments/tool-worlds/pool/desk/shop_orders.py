"""An online shop's back-office functions: the task asks for one or two of them with every argument
in its words; solved when exactly those calls were made (in any order)."""

import json

from spadework.envs import ToolEnv, tool

PRODUCTS = ["desk lamp", "yoga mat", "kettle", "backpack", "headphones", "teapot"]
CUSTOMERS = ["Ines Park", "Omar Diallo", "Ruth Berg", "Sam Tanaka"]


class ShopOrdersEnv(ToolEnv):
    """Stock, prices, refunds, discounts and shipping quotes."""

    max_turns = 3

    def new_episode(self) -> str:
        self.made = {}
        r = self.rng
        product, customer = r.choice(PRODUCTS), r.choice(CUSTOMERS)
        order, count = r.randint(1000, 9999), r.randint(2, 40)
        price, percent, weight = r.choice([19.99, 45.0, 120.5]), r.choice([10, 15, 25]), r.choice([0.8, 2.5, 6.0])
        requests = [
            (f"How many {product}s are in stock?", f"check_stock(product={product!r})"),
            (f"Set the price of the {product} to {price}.", f"set_price(product={product!r}, price={price})"),
            (f"Refund order {order} for {customer}; the item arrived damaged.",
             f"refund_order(order_id={order}, customer={customer!r}, reason='damaged')"),
            (f"Create a {percent} percent discount code for {customer}, usable {count} times.",
             f"create_discount(customer={customer!r}, percent={percent}, uses={count})"),
            (f"Quote express shipping for a {weight} kg parcel to {customer}.",
             f"quote_shipping(weight_kg={weight}, customer={customer!r}, express=True)"),
        ]
        chosen = r.sample(requests, 2 if r.random() < 0.3 else 1)
        self._calls = [call for _, call in chosen]
        return " ".join(text for text, _ in chosen)

    def _done(self, function: str, /, **arguments) -> dict:
        self.made[function + json.dumps(arguments, sort_keys=True)] = True
        return {"status": "ok", "action": function}

    @tool
    def check_stock(self, product: str) -> dict:
        """How many of a product the warehouse holds.

        Args:
            product: the product's name.
        """
        return self._done("check_stock", product=product)

    @tool
    def set_price(self, product: str, price: float) -> dict:
        """Change a product's price.

        Args:
            product: the product's name.
            price: the new price.
        """
        return self._done("set_price", product=product, price=price)

    @tool
    def refund_order(self, order_id: int, customer: str, reason: str) -> dict:
        """Refund a customer's order.

        Args:
            order_id: the order's number.
            customer: the customer's name.
            reason: why it is refunded.
        """
        return self._done("refund_order", order_id=order_id, customer=customer, reason=reason)

    @tool
    def create_discount(self, customer: str, percent: int, uses: int = 1) -> dict:
        """Make a discount code for a customer.

        Args:
            customer: who may use it.
            percent: the discount, in percent.
            uses: how many times it can be used.
        """
        return self._done("create_discount", customer=customer, percent=percent, uses=uses)

    @tool
    def quote_shipping(self, weight_kg: float, customer: str, express: bool = False) -> dict:
        """The price of shipping a parcel to a customer.

        Args:
            weight_kg: the parcel's weight.
            customer: who it goes to.
            express: by express.
        """
        return self._done("quote_shipping", weight_kg=weight_kg, customer=customer, express=express)

    def solution(self) -> list[str]:
        return list(self._calls)

    def hint(self) -> str:
        return "Each request is one function; copy every value the task gives, as it gives it."
