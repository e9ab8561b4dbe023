/**
 * @flotilla/preview: "if I apply this, what moves?" asked of the live state, by the affinity scheduler's own pure
 * functions. Shared by the gateway (its `preview` operation and the admission webhook's dry-run warnings) and the CLI.
 */
export {
  previewChange,
  previewWarnings,
  autoscalerLine,
  PREVIEW_DEFAULTS,
  PREVIEW_WARNING_LIMIT,
  type BindingPreview,
  type ClusterAction,
  type LiveState,
  type Preview,
  type PreviewChange,
  type PreviewOptions,
} from './preview.js';
export { previewAutoscalers, type AutoscalerInput, type AutoscalerPreview } from './autoscalers.js';
export { PreviewInputError, isPreviewInputError } from './errors.js';
export { previewFailBacks, type FailBackPreview, type FailBackQueuePreview } from './fail-backs.js';
