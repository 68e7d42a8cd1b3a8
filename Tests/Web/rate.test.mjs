// The web player's rate choice (web/player/rate.js), with exact values, under Node's own test
// runner: `node --test Tests/Web`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RateChooser } from "../../web/player/rate.js";

const ladder = [
    { bandwidth: 300000, average: 250000 },
    { bandwidth: 900000, average: 800000 },
    { bandwidth: 2500000, average: 2000000 },
];

test("the estimate is the lower of a fast and a slow moving average; small downloads do not count", () => {
    const rate = new RateChooser();
    assert.equal(rate.estimate(), null);
    rate.measured(1000, 0.01);
    assert.equal(rate.estimate(), null);
    rate.measured(125000, 1); // 1 Mbit/s
    assert.equal(rate.estimate(), 1000000);
    rate.measured(375000, 1); // 3 Mbit/s: the fast average moves halfway, the slow 15 %
    assert.equal(rate.fast, 2000000);
    assert.equal(rate.slow, 1300000);
    assert.equal(rate.estimate(), 1300000);
});

test("down at once to the best that fits in 80 % of the estimate", () => {
    const rate = new RateChooser();
    rate.measured(125000, 1); // 1 Mbit/s: 800 kbit/s fits 360p's average
    assert.equal(rate.choose(ladder, 2, 10, 6, 100000), 1);
    assert.equal(rate.lastMove, 100000);
    rate.slowLink(200000);
    assert.equal(rate.estimate(), 200000);
    assert.equal(rate.choose(ladder, 1, 10, 6, 100001), 0);
});

test("up one step, once what is above fits in 70 %, the buffer holds and 4 s have passed", () => {
    const rate = new RateChooser();
    rate.measured(1250000, 1); // 10 Mbit/s
    assert.equal(rate.choose(ladder, 0, 0.5, 6, 10000), 0, "too little buffered");
    assert.equal(rate.choose(ladder, 0, 1.5, 6, 10000), 1);
    assert.equal(rate.choose(ladder, 1, 1.5, 6, 13000), 1, "under 4 s since the last move");
    assert.equal(rate.choose(ladder, 1, 1.5, 6, 14001), 2);
    assert.equal(rate.choose(ladder, 2, 1.5, 6, 20000), 2, "nothing above");
    assert.equal(new RateChooser().choose(ladder, 1, 10, 6, 0), 1, "nothing measured yet");
});
