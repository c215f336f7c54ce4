/**
 * One patch marker per release (docs/decisions/workflow-versioning.md): every workflow change between
 * two releases shares the next release's marker, so a workflow holds one branch per release still
 * running, never one per feature. A marker is deprecated, then removed, once the executions of the
 * release before it have drained.
 */

/** Everything from 1.0.0 to 1.1.0 (CHANGELOG.md, [1.1.0]). */
export const RELEASE_1_1 = 'release-1.1';

/** Everything from 1.1.0 to 1.2.0 (CHANGELOG.md, [1.2.0]). */
export const RELEASE_1_2 = 'release-1.2';

/** Everything after 1.2.0, until 1.3.0 is cut (CHANGELOG.md, [Unreleased]): the next workflow change's marker. */
export const RELEASE_1_3 = 'release-1.3';
