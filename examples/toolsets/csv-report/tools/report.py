"""CSV summaries for the report renderer (artifacts/report.html)."""
import csv
import statistics
from pathlib import Path

SAMPLE = """month,region,units,revenue
2026-01,north,120,2400.50
2026-02,north,135,2710.00
2026-03,north,160,3190.25
2026-01,south,90,1710.00
2026-02,south,110,2090.75
2026-03,south,150,2985.00
"""


def make_sample(workspace: Path, path: str = "sales.csv") -> dict:
    target = workspace / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(SAMPLE)
    return {"path": path, "rows": SAMPLE.count("\n") - 1}


def _number(value: str):
    try:
        return float(value)
    except ValueError:
        return None


def analyze(workspace: Path, path: str, bins: int = 8, atelier_config: dict | None = None) -> dict:
    # The toolset's settings (user_config in toolset.yaml): the person sets
    # them at install or in the toolset's settings; the model never sees them.
    settings = atelier_config or {}
    delimiter = settings.get("delimiter") or ","
    decimals = int(settings.get("decimals", 4))
    with (workspace / path).open(newline="") as f:
        rows = list(csv.DictReader(f, delimiter=delimiter))
    columns = []
    for name in (rows[0].keys() if rows else []):
        values = [r[name] for r in rows]
        numbers = [n for n in (_number(v) for v in values) if n is not None]
        column = {"name": name, "count": len(values), "distinct": len(set(values))}
        if numbers and len(numbers) == len(values):
            low, high = min(numbers), max(numbers)
            width = (high - low) / bins or 1
            histogram = [0] * bins
            for n in numbers:
                histogram[min(int((n - low) / width), bins - 1)] += 1
            column.update(numeric=True, min=low, max=high, mean=round(statistics.fmean(numbers), decimals),
                          histogram=histogram)
        else:
            column.update(numeric=False)
        columns.append(column)
    return {"file": path, "rows": len(rows), "columns": columns}
