// ESLint for the end-to-end scripts (Node ES modules). The packages are the
// UI's (ui/node_modules): `npm --prefix ui run lint` runs this too.
import js from '../ui/node_modules/@eslint/js/src/index.js';
import globals from '../ui/node_modules/globals/index.js';

export default [
  js.configs.recommended,
  { files: ['**/*.mjs', '**/*.js'], languageOptions: { globals: globals.node, sourceType: 'module' } },
];
