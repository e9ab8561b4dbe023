import { describe, expect, it } from 'vitest';
import { parseRangeResponse, singleSeries } from './range-response.js';

const matrix = (result: unknown) => ({ status: 'success', data: { resultType: 'matrix', result } });

describe('parseRangeResponse', () => {
  it('reads every series with its labels and numeric samples', () => {
    const r = parseRangeResponse(
      matrix([
        {
          metric: { pod: 'a' },
          values: [
            [1700000000, '1.5'],
            [1700000060, '2'],
          ],
        },
        { values: [] },
      ]),
    );
    expect(r).toEqual([
      {
        metric: { pod: 'a' },
        samples: [
          [1700000000, 1.5],
          [1700000060, 2],
        ],
      },
      { metric: {}, samples: [] },
    ]);
  });

  it.each([
    { body: null, field: '(root)' },
    { body: { status: 'error', error: 'bad' }, field: 'status' },
    { body: { status: 'success' }, field: 'data' },
    { body: { status: 'success', data: { resultType: 'vector', result: [] } }, field: 'data.resultType' },
    { body: { status: 'success', data: { resultType: 'matrix', result: {} } }, field: 'data.result' },
    { body: matrix([1]), field: 'data.result[0]' },
    { body: matrix([{ metric: 'x', values: [] }]), field: 'data.result[0].metric' },
    { body: matrix([{ values: 'x' }]), field: 'data.result[0].values' },
    { body: matrix([{ values: [[1, '1', 2]] }]), field: 'data.result[0].values[0]' },
    { body: matrix([{ values: [['1', '1']] }]), field: 'data.result[0].values[0][0]' },
    { body: matrix([{ values: [[1, 'NaN']] }]), field: 'data.result[0].values[0][1]' },
    { body: matrix([{ values: [[1, '+Inf']] }]), field: 'data.result[0].values[0][1]' },
    {
      body: matrix([
        {
          values: [
            [2, '1'],
            [1, '1'],
          ],
        },
      ]),
      field: 'data.result[0].values[1][0]',
    },
  ])('rejects a malformed answer at $field', ({ body, field }) => {
    expect(() => parseRangeResponse(body)).toThrow(expect.objectContaining({ name: 'RangeResponseError', field }));
  });
});

describe('singleSeries', () => {
  it('is empty for no series, the samples of one, and refuses several', () => {
    expect(singleSeries([])).toEqual([]);
    expect(singleSeries([{ metric: {}, samples: [[1, 2]] }])).toEqual([[1, 2]]);
    expect(() =>
      singleSeries([
        { metric: {}, samples: [] },
        { metric: {}, samples: [] },
      ]),
    ).toThrow(/expected one series .* got 2: aggregate the query with sum\(\)/);
  });
});
