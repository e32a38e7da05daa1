"""Count outcomes in a pytest junit-xml file: passed, failed (failures and errors), skipped, per file."""
import xml.etree.ElementTree as ET


def parse_junit(path):
    """{"passed": n, "failed": n, "skipped": n, "failures": [(test id, first message line)], "skips": [...]}"""
    counts = {"passed": 0, "failed": 0, "skipped": 0, "failures": [], "skips": []}
    for case in ET.parse(path).getroot().iter("testcase"):
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        skip = case.find("skipped")
        if bad is not None:
            counts["failed"] += 1
            counts["failures"].append((test_id, _first_line(bad.get("message") or bad.text or "")))
        elif skip is not None:
            counts["skipped"] += 1
            counts["skips"].append((test_id, _first_line(skip.get("message") or "")))
        else:
            counts["passed"] += 1
    return counts


def pass_rate(counts):
    """Passed share of the tests that ran (not skipped); None when none ran."""
    ran = counts["passed"] + counts["failed"]
    return counts["passed"] / ran if ran else None


def _first_line(text):
    text = text.strip()
    return text.splitlines()[0][:300] if text else ""
