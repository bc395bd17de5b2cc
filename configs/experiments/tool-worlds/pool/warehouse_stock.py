from spadework.envs import DeclaredWorld


class WarehouseStockEnv(DeclaredWorld):
    """A warehouse's products and the bins that hold them."""

    collections = {
        "products": {
            "sku": ["A-100", "B-220", "C-315", "D-480", "E-505", "F-610"],
            "category": ["tools", "paint", "garden"],
            "units": [0, 5, 10, 20, 40],
        },
        "bins": {
            "label": ["North-1", "North-2", "South-1", "South-2", "East-1"],
            "aisle": [1, 2, 3, 4],
            "capacity": [50, 100, 150],
        },
    }
    links = {"placements": {"product_id": "products", "bin_id": "bins"}}
    tasks = ("update", "transfer", "link")
    steps = 2
    size = 4
