// The taint decision is shared with the live preview (packages/preview), so it lives beside the scheduler's other
// pure functions.
export {
  decideTaints,
  NOT_READY_TAINT,
  UNREACHABLE_TAINT,
  type TaintDecision,
} from '@flotilla/scheduling';
