// GraphQL Codegen's client preset over the frontend's documents (operations/, not admin-*):
// its persisted documents ("sha256:<hex>" → the text it prints, __typename added as its docs
// advise for a normalized cache) become operations/manifests/codegen.json (`make manifests`).
import { addTypenameSelectionDocumentTransform } from '@graphql-codegen/client-preset';

/** @type {import('@graphql-codegen/cli').CodegenConfig} */
export default {
  schema: 'graph/*.graphqls',
  documents: ['operations/*.graphql', '!operations/admin-*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    'dist/codegen/': {
      preset: 'client',
      presetConfig: { persistedDocuments: { hashAlgorithm: 'sha256' } },
      documentTransforms: [addTypenameSelectionDocumentTransform],
    },
  },
};
