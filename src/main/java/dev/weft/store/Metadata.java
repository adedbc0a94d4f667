package dev.weft.store;

import tools.jackson.databind.node.ObjectNode;

/** The properties of a database or collection (RESTHeart's metadata), with its current etag. */
public record Metadata(ObjectNode properties, String etag) {}
