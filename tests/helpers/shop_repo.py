"""A small Python project that context selection tests run on: a shop with a cart, pricing
and a checkout that ties them together."""

PY_FILES = {
    "shop/__init__.py": "from .cart import Cart\nfrom .pricing import apply_discount\n",
    "shop/cart.py": (
        '"""The shopping cart."""\n'
        "import decimal\n\n"
        "from .pricing import apply_discount\n\n\n"
        "class Cart:\n"
        '    """Items a customer is about to buy."""\n\n'
        "    def __init__(self):\n"
        "        self.items = []\n\n"
        "    def add_item(self, name, price):\n"
        "        self.items.append((name, decimal.Decimal(price)))\n\n"
        "    def total(self, code=None):\n"
        "        subtotal = sum(price for _, price in self.items)\n"
        "        return apply_discount(subtotal, code)\n"
    ),
    "shop/pricing.py": (
        '"""Prices and discount codes."""\n\n'
        "CODES = {'SPRING': 10}\n\n\n"
        "def apply_discount(amount, code):\n"
        "    percent = CODES.get(code, 0)\n"
        "    return amount * (100 - percent) / 100\n\n\n"
        "def format_price(amount):\n"
        "    return f'{amount:.2f} EUR'\n"
    ),
    "shop/shipping.py": (
        "def shipping_cost(weight_kg):\n"
        "    if weight_kg < 1:\n"
        "        return 4\n"
        "    return 4 + weight_kg * 2\n"
    ),
    "README.md": "# shop\n\nA tiny shop with a cart, discounts and shipping.\n",
    "logo.png": b"\x89PNG\r\n\x1a\n\0\0\0",
    ".env": "API_KEY=secret\n",
}
