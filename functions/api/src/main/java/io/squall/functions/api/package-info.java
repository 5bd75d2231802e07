/**
 * The wire protocol shared by every stage: RSocket route names, request and response records and their codecs. Lands with the functions issue.
 */
package io.squall.functions.api;
