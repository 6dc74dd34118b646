def main() -> None:
    raise SystemExit("wmrl: no commands yet")
