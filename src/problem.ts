/** One thing wrong with a body, named by its field path: a 422 lists them. */
export interface Problem {
  field: string;
  message: string;
}
