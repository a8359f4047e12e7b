export * from './constants.js';
export * from './frame.js';
export * from './stamp.js';
