# SPDX-License-Identifier: Apache-2.0
"""openvgf.DevicePool (issue 34 item 1): the ADD fixture on the test device named three times
(three sessions, three threads): run_many returns every item's sum (computed here with numpy) in
item order, lists and dicts as Session.run gives them; a bad item raises, or with
return_errors=True holds its openvgf.Error while the others keep their outputs; device
selection errors."""

import unittest

import numpy as np

import openvgf
from support import ADD, DEVICE, OpenvgfTestCase


class DevicePoolTest(OpenvgfTestCase):

    def pool(self):
        options = dict(self.options)
        del options["device"]
        return openvgf.DevicePool(str(ADD / "model.tosa"), devices=",".join([DEVICE] * 3), in_flight=2, **options)

    def items(self, count):
        return [[self.a + np.float32(100 * n), self.b] for n in range(count)]

    def test_run_many_keeps_item_order_and_matches_numpy(self):
        pool = self.pool()
        self.assertEqual(len(pool.devices), 3)
        self.assertEqual(len(set(pool.device_indices)), 1)
        single = openvgf.Model(str(ADD / "model.tosa"), **self.options)
        self.assertEqual([t["name"] for t in pool.inputs], [t["name"] for t in single.inputs])
        items = self.items(25)
        results = pool.run_many(items)
        self.assertEqual(len(results), 25)
        for n, ((a, b), (y,)) in enumerate(zip(items, results)):
            np.testing.assert_array_equal(y, a + b, err_msg=f"item {n}")
        names = [t["name"] for t in pool.inputs]
        (named,) = pool.run_many([dict(zip(names, items[7]))])
        self.assertEqual(list(named), [t["name"] for t in pool.outputs])
        np.testing.assert_array_equal(next(iter(named.values())), items[7][0] + items[7][1])

    def test_a_bad_item_raises_or_is_returned_in_its_place(self):
        pool = self.pool()
        items = self.items(6)
        items[2] = [self.a.astype(np.float64), self.b]  # no silent cast
        self.assertError("InvalidInput", "expected dtype float32", pool.run_many, items)
        results = pool.run_many(items, return_errors=True)
        self.assertIsInstance(results[2], openvgf.Error)
        self.assertEqual(results[2].code, "InvalidInput")
        for n in (0, 1, 3, 4, 5):
            np.testing.assert_array_equal(results[n][0], items[n][0] + items[n][1])

    def test_devices_that_name_nothing_are_refused(self):
        model = str(ADD / "model.tosa")
        self.assertError("InvalidInput", "expected an index below", openvgf.DevicePool, model, devices="99")
        self.assertError("InvalidInput", "got an empty entry", openvgf.DevicePool, model, devices="0,,0")
        self.assertError("InvalidInput", "expected 1 to 8", openvgf.DevicePool, model, in_flight=9)


if __name__ == "__main__":
    unittest.main()
