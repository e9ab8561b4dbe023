import { z } from 'zod';
import { int32, int64, quantitySchema } from './common.js';

// The Cluster's resource models on their own: the Cluster kind's schema holds them, and packages/api's
// resource-models.ts (the estimator's reading of them) is typed by them without importing the kind.

/** One of `spec.resourceModels`: a grade of node capacity (Karmada's ResourceModel). */
export const resourceModelSchema = z.strictObject({
  grade: int32.min(0).describe('Grade is the index for the resource modeling.'),
  ranges: z
    .array(
      z.strictObject({
        name: z.string().min(1).describe('Name is the name for the resource that you want to categorize.'),
        min: quantitySchema.describe(
          'Min is the minimum amount of this resource represented by resource name (the first grade always starts at zero).',
        ),
        max: quantitySchema.describe(
          'Max is the maximum amount of this resource represented by resource name (the last range has no upper bound).',
        ),
      }),
    )
    .describe('Ranges describes the resource quota ranges.'),
});
export type ResourceModel = z.infer<typeof resourceModelSchema>;

/** One of `status.resourceSummary.allocatableModelings`: how many nodes fall in a grade (Karmada's AllocatableModeling). */
export const allocatableModelingSchema = z.looseObject({
  grade: int32.describe('Grade is the index of ResourceModel.'),
  count: int64.describe('Count is the number of nodes that own the resources delineated by this modeling.'),
});
export type AllocatableModeling = z.infer<typeof allocatableModelingSchema>;
