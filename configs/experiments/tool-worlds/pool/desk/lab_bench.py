"""A lab bench's calculators and instruments, each its own function: the task asks for one or two
with every argument in its words; solved when exactly those calls were made (in any order)."""

import json

from spadework.envs import ToolEnv, tool

SAMPLES = ["S-104", "S-221", "S-310", "S-487", "S-502"]
REAGENTS = ["ethanol", "acetone", "glycerol", "saline"]


class LabBenchEnv(ToolEnv):
    """Dilutions, unit conversions, instrument bookings, sample logs and ordering."""

    max_turns = 3

    def new_episode(self) -> str:
        self.made = {}
        r = self.rng
        sample, reagent = r.choice(SAMPLES), r.choice(REAGENTS)
        stock, final = r.choice([10.0, 5.0, 2.5]), r.choice([0.5, 0.25, 1.0])
        volume, hour = r.choice([50, 100, 250]), r.randint(8, 17)
        tags = r.sample(["frozen", "urgent", "fragile", "sterile"], 2)
        requests = [
            (f"How much of a {stock} molar stock do I need for {volume} mL at {final} molar?",
             f"calculate_dilution(stock_molarity={stock}, target_molarity={final}, final_volume_ml={volume})"),
            (f"Convert {volume} millilitres to fluid ounces.",
             f"convert_units(value={volume}, from_unit='mL', to_unit='fl oz')"),
            (f"Book the centrifuge for {hour}:00, for sample {sample}.",
             f"reserve_instrument(instrument='centrifuge', hour={hour}, sample_id={sample!r})"),
            (f"Log sample {sample} with the tags {tags[0]} and {tags[1]}.",
             f"log_sample(sample_id={sample!r}, tags={tags!r})"),
            (f"Order {volume} mL of {reagent}, express delivery.",
             f"order_reagent(name={reagent!r}, volume_ml={volume}, express=True)"),
        ]
        chosen = r.sample(requests, 2 if r.random() < 0.3 else 1)
        self._calls = [call for _, call in chosen]
        return " ".join(text for text, _ in chosen)

    def _done(self, function: str, /, **arguments) -> dict:
        self.made[function + json.dumps(arguments, sort_keys=True)] = True
        return {"status": "done", "function": function}

    @tool
    def calculate_dilution(self, stock_molarity: float, target_molarity: float, final_volume_ml: float) -> dict:
        """The volume of stock solution a dilution needs.

        Args:
            stock_molarity: the stock's concentration, in mol/L.
            target_molarity: the wanted concentration, in mol/L.
            final_volume_ml: the final volume, in mL.
        """
        return self._done("calculate_dilution", stock_molarity=stock_molarity,
                          target_molarity=target_molarity, final_volume_ml=final_volume_ml)

    @tool
    def convert_units(self, value: float, from_unit: str, to_unit: str) -> dict:
        """Convert a quantity between units.

        Args:
            value: the quantity.
            from_unit: its unit, e.g. mL.
            to_unit: the unit wanted, e.g. fl oz.
        """
        return self._done("convert_units", value=value, from_unit=from_unit, to_unit=to_unit)

    @tool
    def reserve_instrument(self, instrument: str, hour: int, sample_id: str) -> dict:
        """Reserve an instrument for an hour of the day.

        Args:
            instrument: which instrument, e.g. centrifuge.
            hour: the hour it starts, 0-23.
            sample_id: the sample it is for.
        """
        return self._done("reserve_instrument", instrument=instrument, hour=hour, sample_id=sample_id)

    @tool
    def log_sample(self, sample_id: str, tags: list[str]) -> dict:
        """Record a sample in the lab's log with tags.

        Args:
            sample_id: the sample's id.
            tags: the tags to attach.
        """
        return self._done("log_sample", sample_id=sample_id, tags=sorted(tags))

    @tool
    def order_reagent(self, name: str, volume_ml: int, express: bool = False) -> dict:
        """Order a reagent from the supplier.

        Args:
            name: the reagent.
            volume_ml: how much, in mL.
            express: deliver by express.
        """
        return self._done("order_reagent", name=name, volume_ml=volume_ml, express=express)

    def solution(self) -> list[str]:
        return list(self._calls)

    def hint(self) -> str:
        return "Each request is one function; copy every value the task gives, as it gives it."
